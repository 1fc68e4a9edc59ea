"""The per-query sandbox built from a record's reference_information."""

from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.store.reference import parse_table, sandbox_from_reference


def test_table_parsing_keeps_multiword_headers():
    text = ("Flight Number  Price DepTime ArrTime  ActualElapsedTime FlightDate OriginCityName DestCityName  Distance\n"
            "     F3573659    474   15:40   17:04 2 hours 24 minutes 2022-03-16 St. Petersburg     Rockford    1049.0")
    names = ["Flight Number", "Price", "DepTime", "ArrTime", "ActualElapsedTime", "FlightDate",
             "OriginCityName", "DestCityName", "Distance"]
    (row,) = parse_table(text, names)
    assert row["Flight Number"] == "F3573659" and row["OriginCityName"] == "St. Petersburg"
    assert row["ActualElapsedTime"] == "2 hours 24 minutes"


def test_gold_plans_pass_on_their_own_reference_sandbox(train_records, train, database):
    failures = []
    for record, (query, plan) in zip(train_records, train, strict=True):
        store = sandbox_from_reference(record)
        result = check_plan(plan, query, store, "official")
        if not result.final_pass:
            failures.append((query.org, query.dest, result.commonsense["is_valid_information_in_sandbox"].reason))
    # The Seattle -> Texas gold plan visits San Angelo, a city its reference information does not list.
    assert failures == [("Seattle", "Texas", "The attraction San Angelo Museum of Fine Arts, San Angelo(Texas) "
                                             "in day 4 is invalid in the sandbox.")]
