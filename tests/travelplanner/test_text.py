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


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from planshape.validators.travelplanner.text import name_city_pattern  # noqa: E402

_pieces = st.sampled_from(["a", "B c", ",", ", ", " ", "(", ")", "(State)", "\n", "\t", "Rockford", "x(y", ",,"])


@settings(max_examples=2000, deadline=None)
@given(st.lists(_pieces, max_size=8).map("".join) | st.text(max_size=30))
def test_fast_name_city_equals_upstream_pattern(text):
    assert name_city(text) == name_city_pattern(text)
