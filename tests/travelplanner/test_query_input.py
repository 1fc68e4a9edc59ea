"""Query records are configuration: a malformed one is a ValueError that names the field."""

import math

import pytest
from planshape.validators.travelplanner.query import Query

RECORD = {"org": "St. Petersburg", "dest": "Rockford", "days": 3, "visiting_city_number": 1,
          "date": "['2022-03-16', '2022-03-17', '2022-03-18']", "people_number": 1, "budget": 1700}


@pytest.mark.parametrize("record", [["org", "dest"], "org=A", None, 42, b"{}"])
def test_a_record_that_is_not_a_mapping(record):
    with pytest.raises(ValueError, match="a query record must be a mapping"):
        Query.from_record(record)


@pytest.mark.parametrize(("field", "value"), [
    ("days", 0), ("days", -3), ("days", 31), ("days", 2**70), ("people_number", 0), ("people_number", -1),
    ("visiting_city_number", 0), ("budget", math.nan), ("budget", math.inf), ("budget", "inf"), ("budget", "nan"),
    ("budget", 0), ("budget", -5), ("date", "[" * 10_000 + "]" * 10_000), ("date", "__import__('os')"),
    ("date", "['2022-03-16']"), ("date", "['2022-03-16', '2022-03-17', '2022-03-18', '2022-03-19']"),
])
def test_bad_fields_are_named(field, value):
    with pytest.raises(ValueError, match=field):
        Query.from_record({**RECORD, field: value})


def test_csv_strings_still_parse():
    query = Query.from_record({k: str(v) for k, v in RECORD.items()})
    assert (query.days, query.budget, query.date[0]) == (3, 1700.0, "2022-03-16")


def test_a_pandas_row_is_a_record():
    pandas = pytest.importorskip("pandas")
    assert Query.from_record(pandas.Series(RECORD)).dest == "Rockford"


@pytest.mark.parametrize(("key", "value", "named"), [
    ("house rule", "no smoking", "house rule"), ("house rule", "Smoking", "house rule"),
    ("room type", "Entire home/apt", "room type"), ("room type", "entire home", "room type"),
    ("transportation", "no flights", "transportation rule"), ("transportation", "No flight", "transportation rule"),
])
def test_an_unknown_constraint_value_is_refused(key, value, named):
    # Upstream (and the checks) pass every plan on a value they do not know: the constraint would be free.
    lc = {"house rule": None, "cuisine": None, "room type": None, "transportation": None, key: value}
    with pytest.raises(ValueError, match=f"unknown {named} '{value}'"):
        Query.from_record({**RECORD, "local_constraint": str(lc)})


def test_every_known_constraint_value_is_accepted():
    from planshape.validators.travelplanner.query import HOUSE_RULE_TEXT, ROOM_TYPES, TRANSPORT_RULES

    for rule, room, transport in zip(HOUSE_RULE_TEXT, [*ROOM_TYPES, None], [*TRANSPORT_RULES, None, None, None],
                                     strict=True):
        lc = {"house rule": rule, "cuisine": ["Chinese"], "room type": room, "transportation": transport}
        assert Query.from_record({**RECORD, "local_constraint": lc}).local_constraint.house_rule == rule
