"""The budget check's cost, pinned to a second, deliberately plain implementation of the upstream cost model
(notes §5.1) over the database CSVs read with pandas, not through planshape's store (issue 30).

What it catches: a charge made once where upstream makes it per person (meals, flights) or per vehicle or room
(taxis for 4, cars for 5, ``ceil(people / maximum occupancy)`` rooms), a night charged or skipped, and ``<``
for ``<=`` at the budget. Every train gold plan is priced for parties of 1 to 8: the gold queries alone have 30
multi-person and 15 multi-room plans, and the other party sizes put every leg and room under the vehicle and
room rules. One plan is also priced by hand from its database rows, in the comment beside it.
"""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest
from planshape.validators.travelplanner.checks.hard import total_cost
from planshape.validators.travelplanner.checks.modes import get_mode
from planshape.validators.travelplanner.checks.trip import Trip
from planshape.validators.travelplanner.checks.verdicts import check_plan

PARTIES = range(1, 9)
Charge = tuple[float, int, str]  # unit price, seats, kind (flight, car, taxi, meal, room)


class PlainCosts:
    """Upstream's cost model written from its description: first matching row, name a substring, city equal."""

    def __init__(self, database) -> None:
        read = lambda sub, name: pd.read_csv(database / sub / name)  # noqa: E731 - four one-line loaders
        self.flights = read("flights", "clean_Flights_2022.csv").dropna()
        self.restaurants = read("restaurants", "clean_restaurant_2022.csv").dropna()
        self.rooms = read("accommodations", "clean_accommodations_2022.csv").dropna()
        self.distance = read("googleDistanceMatrix", "distance.csv")

    @staticmethod
    def name_city(text: str) -> tuple[str, str]:
        name, _, city = text.rpartition(",")
        return name.strip(), re.sub(r"\(.*", "", city.strip()).strip()

    @staticmethod
    def first(table: pd.DataFrame, name_column: str, city_column: str, text: str) -> pd.Series | None:
        name, city = PlainCosts.name_city(text)
        rows = table[table[name_column].astype(str).str.contains(name, regex=False) & (table[city_column] == city)]
        return None if rows.empty else rows.iloc[0]

    def leg_km(self, origin: str, destination: str) -> float | None:
        rows = self.distance[(self.distance.origin == origin) & (self.distance.destination == destination)]
        if rows.empty or pd.isna(rows.iloc[0].duration) or pd.isna(rows.iloc[0].distance):
            return None
        if "day" in rows.iloc[0].duration:
            return None
        return float(rows.iloc[0].distance.replace("km", "").replace(",", ""))

    def charges(self, plan: list[dict], days: int) -> list[Charge]:
        """``(unit price, seats, kind)`` for every charged item of the first ``days`` days: the item costs
        ``unit price x ceil(people / seats)``; seats 1 is a per-person charge (a meal, a flight seat)."""
        out = []
        for day in plan[:days]:
            move = day.get("transportation", "-")
            leg = re.search(r"from (.+?) to ([^,]+)", move) or re.search(r"from (.+?) to ([^,]+)", day["current_city"])
            if move not in ("", "-") and leg:
                origin, destination = (re.sub(r"\(.*", "", c) for c in leg.groups())
                if "flight number" in move.lower():
                    number = move.split("Flight Number: ")[1].split(",")[0]
                    rows = self.flights[self.flights["Flight Number"] == number]
                    if not rows.empty:
                        out.append((rows.iloc[0].Price, 1, "flight"))
                elif "self-driving" in move.lower():
                    out.append((int(self.leg_km(origin, destination) * 0.05), 5, "car"))  # a car seats 5
                elif "taxi" in move.lower():
                    out.append((int(self.leg_km(origin, destination)), 4, "taxi"))  # $1 a km, a taxi seats 4
            for meal in ("breakfast", "lunch", "dinner"):
                if day.get(meal, "-") not in ("", "-") and (row := self.first(
                        self.restaurants, "Name", "City", day[meal])) is not None:
                    out.append((row["Average Cost"], 1, "meal"))
            stay = day.get("accommodation", "-")
            if stay not in ("", "-") and (row := self.first(self.rooms, "NAME", "city", stay)) is not None:
                out.append((row.price, int(row["maximum occupancy"]), "room"))  # a night, per room
        return out

    @staticmethod
    def price(charges: list[Charge], people: int) -> float:
        return float(sum(unit * math.ceil(people / seats) for unit, seats, _ in charges))


@pytest.fixture(scope="module")
def gold_charges(shared_dir, train) -> list[list[Charge]]:
    plain = PlainCosts(shared_dir / "database")
    return [plain.charges(plan, query.days) for query, plan in train]


def planshape_cost(plan, query, store) -> float:
    return total_cost(Trip(query, plan[: query.days], store, get_mode("official")))


def test_every_gold_plan_costs_what_the_plain_model_says_for_every_party(train, database, gold_charges):
    shared = 0  # charges that a party shares (a car, a room) and that this party fills beyond one
    for k, ((query, plan), charges) in enumerate(zip(train, gold_charges, strict=True)):
        for people in PARTIES:
            party = query.model_copy(update={"people_number": people})
            assert planshape_cost(plan, party, database) == PlainCosts.price(charges, people), (k, people)
            shared += sum(1 for _, seats, _ in charges if 1 < seats < people)
    assert shared > 100, shared  # the comparison covered full cars, taxis and rooms, not only per-person charges


def test_gold_queries_own_parties_include_multi_person_and_multi_room_plans(train, gold_charges):
    multi_person = sum(query.people_number > 1 for query, _ in train)
    multi_room = sum(any(kind == "room" and seats < query.people_number for _, seats, kind in charges)
                     for (query, _), charges in zip(train, gold_charges, strict=True))
    assert (multi_person, multi_room) == (30, 15)  # the counts issue 30's planted bugs changed


def test_a_five_day_seven_person_plan_priced_by_hand(train, database):
    """Train row 22 (San Jose -> Idaho, 5 days, 7 people), priced by hand from its database rows."""
    query, plan = train[22]
    assert (query.days, query.people_number, query.budget) == (5, 7, 13900)  # the row the sum below is about
    flight = 260 * 7  # F3937562's first row: Price 260, per person
    meals = (95 + 72 + 83 + 95 + 28 + 31 + 31 + 58 + 78 + 79 + 19) * 7  # 11 meals' Average Cost, per person
    rooms = (273 * math.ceil(7 / 2)) * 2 + (250 * math.ceil(7 / 3)) * 2  # Boise (occupancy 2), Idaho Falls (3)
    taxis = (451 + 1388) * math.ceil(7 / 4)  # the table's km, $1 a km, 4 seats a taxi (not the plan's 1,387)
    assert flight + meals + rooms + taxis == 13865
    assert planshape_cost(plan, query, database) == 13865


def test_cost_equal_to_the_budget_passes_and_one_above_fails(train, database, gold_charges):
    for (query, plan), charges in zip(train, gold_charges, strict=True):
        cost = PlainCosts.price(charges, query.people_number)
        at = check_plan(plan, query.model_copy(update={"budget": cost}), database, "official")
        assert at.hard["valid_cost"].status.value == "pass", at.hard["valid_cost"].reason
        below = check_plan(plan, query.model_copy(update={"budget": cost - 1}), database, "official")
        assert below.hard["valid_cost"].status.value == "fail", below.hard["valid_cost"].reason


def _fragment(text: str) -> str:
    """``Name, City`` cut to the name's first three characters: upstream charges the first row containing it."""
    name, _, city = text.rpartition(",")
    return f"{name.strip()[:3]},{city}" if name.strip() else text


def test_a_name_fragment_is_charged_at_its_first_matching_row(train, database, shared_dir):
    """Q3: a fragment matches many rows, and the cost is the first one's (file order), for meals and rooms."""
    plain = PlainCosts(shared_dir / "database")
    ambiguous = 0
    for query, plan in train:
        cut = [{k: _fragment(v) if k in ("breakfast", "lunch", "dinner", "accommodation") and v not in ("", "-")
                else v for k, v in day.items()} for day in plan]
        expected = PlainCosts.price(plain.charges(cut, query.days), query.people_number)
        assert planshape_cost(cut, query, database) == expected, query.query[:60]
        for day in cut[: query.days]:
            stay = day.get("accommodation", "-")
            if stay not in ("", "-"):
                name, city = PlainCosts.name_city(stay)
                rows = plain.rooms[plain.rooms.NAME.astype(str).str.contains(name, regex=False)
                                   & (plain.rooms.city == city)]
                ambiguous += rows.price.nunique() > 1
    assert ambiguous > 20  # fragments that match rows of different prices: the first row is what is charged
