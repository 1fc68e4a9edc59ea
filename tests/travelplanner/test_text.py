"""The upstream parsing helpers, including the behaviour that looks wrong (notes §4)."""

from planshape.validators.travelplanner.text import (
    before_parenthesis,
    extract_from_to,
    flight_number,
    name_city,
    transport_kind,
)


def test_extract_from_to_keeps_trailing_text():
    assert extract_from_to("from A to B") == ("A", "B")
    assert extract_from_to("from A to B ") == ("A", "B ")
    assert extract_from_to("...to Rockford. from X to Rockford.") == ("X", "Rockford.")
    assert extract_from_to("Flight Number: F1, from New York to Los Angeles, Departure") == ("New York", "Los Angeles")
    assert extract_from_to("Rockford") == (None, None)


def test_before_parenthesis_does_not_strip():
    assert before_parenthesis("Grand Junction(Colorado)") == "Grand Junction"
    assert before_parenthesis("Grand Junction (Colorado)") == "Grand Junction "
    assert before_parenthesis("Austin") == "Austin"


def test_name_city_splits_on_last_comma():
    museum = "The Museum of Fine Arts, Houston"
    assert name_city(f"{museum}, Houston(Texas)") == (museum, "Houston")
    assert name_city(", Rockford") == ("", "Rockford")
    assert name_city("no comma") == ("-", "-")


def test_transport_kind_priority():
    assert transport_kind("Taxi then self-driving") == "Taxi"
    assert transport_kind("SELF-DRIVING") == "Self-driving"
    assert transport_kind("flight") == "Flight"
    assert transport_kind("Drive") is None


def test_flight_number_needs_exact_spelling():
    assert flight_number("Flight Number: F123, from A to B") == "F123"
    try:
        flight_number("flight number: F123")
    except IndexError:
        pass
    else:
        raise AssertionError("upstream raises IndexError here")


import os  # noqa: E402
import re  # noqa: E402

import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from planshape.validators.travelplanner.text import scan_from_to  # noqa: E402

from ..fuzz import timed  # noqa: E402

# The upstream evaluator's own patterns (utils/func.py, evaluation/commonsense_constraint.py): the oracle.
UPSTREAM_FROM_TO = re.compile(r"from\s+(.+?)\s+to\s+([^,]+)(?=[,\s]|$)")
UPSTREAM_BEFORE_PAREN = re.compile(r"^(.*?)\([^)]*\)")
UPSTREAM_NAME_CITY = re.compile(r"(.*?),\s*([^,]+)(\(\w[\w\s]*\))?$")


def upstream_from_to(text):
    match = UPSTREAM_FROM_TO.search(text)
    return match.groups() if match else (None, None)


def upstream_before_parenthesis(text):
    match = UPSTREAM_BEFORE_PAREN.search(text)
    return match.group(1) if match else text


def upstream_name_city(text):
    match = UPSTREAM_NAME_CITY.search(text)
    if match is None:
        return "-", "-"
    return match.group(1).strip(), upstream_before_parenthesis(match.group(2).strip()).strip()


EXAMPLES = int(os.environ.get("PLANSHAPE_FUZZ_EXAMPLES", "1000"))
_pieces = st.sampled_from(["a", "B c", ",", ", ", " ", "  ", "(", ")", "(State)", "\n", "\t", "\xa0", "\u2028",
                           "Rockford", "x(y", ",,", "from", "from ", "to", " to ", "fromto", "t", "o", "rom", "tox"])
texts = st.lists(_pieces, max_size=12).map("".join) | st.text(max_size=30)


@settings(max_examples=EXAMPLES, deadline=None)
@given(texts)
def test_parsers_equal_upstream_patterns(text):
    assert name_city(text) == upstream_name_city(text)
    assert before_parenthesis(text) == upstream_before_parenthesis(text)
    expected = upstream_from_to(text)
    assert extract_from_to(text) == expected
    if "from" in text:
        assert scan_from_to(text) == expected  # the linear scan itself, not only the short-text path


def test_from_to_corner_cases_equal_upstream():
    # group 1 may be one whitespace character of the run after "from", but never a newline
    for text in ["from   to x", "from \n  to x", "from \n\n to x", "from  \t to ,", "from a to  ", "from a to ,",
                 "from a\nb to c", "from from a to b", "fromfrom a to b", "from a to b, from c to d"]:
        assert extract_from_to(text) == scan_from_to(text) == upstream_from_to(text), text


@pytest.mark.parametrize("parse", [extract_from_to, before_parenthesis, name_city])
def test_parsers_reject_non_text_as_upstream(parse):
    with pytest.raises(TypeError):
        parse(None)
    with pytest.raises(TypeError):
        parse(["from a to b"])


# Texts on which upstream's patterns backtrack for seconds to minutes (issue 8): each must parse in
# linear time. 100,000 characters, the answer cap; the regex takes ~30 s on the first.
STALLS = {
    "from-repeated": "from " * 20_000,
    "from-then-spaces": "from" + " " * 100_000 + "x",
    "from-then-tabs-to": "from\t" + "\t" * 100_000 + "to x",
    "open-parentheses": "(" * 100_000,
    "from-lines": "from a\n" * 14_000 + " to b",
    "from-newline-before-to": "from " * 20_000 + "x\nx to b",
    "comma-lines": "\n" + ", (a" * 33_000,
}


@pytest.mark.parametrize("name", sorted(STALLS))
def test_parsers_are_linear_on_backtracking_inputs(name):
    text = STALLS[name]
    _, seconds = timed(lambda: (extract_from_to(text), before_parenthesis(text), name_city(text)))
    assert seconds < 0.5, f"{name} took {seconds:.2f} CPU s"
