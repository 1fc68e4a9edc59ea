"""The CP-SAT model of one query: the cities of the trip in order with their nights (so their listings), how each
travel day travels, which meals of the travel days are eaten and where, which restaurants serve the required
cuisines, how many stay days take a day trip where; the trip's cost minimised within the budget.

The route is a layered network: a trip of ``n`` cities is ``n`` positions, each one (city, nights) node, joined by
``n + 1`` transitions (day 1 from the origin, a travel day between consecutive cities on the day the nights before
it add up to, the last day home), each one leg. Costs enter as tables the candidates computed (a city's listing for
N nights, and without cuisines its cheapest meals), so the linear relaxation is a shortest path's and stays tight.

Every day of the model fits the clock from 00:00. A day that runs past midnight delays the next one; when a
witness shows a day that cannot start that late, ``cut`` forbids that witness's route with the choices of the days
of the late chain, and the model is solved again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from ..store.sandbox import Restaurant
from .candidates import DRIVE, Candidates, City, Leg, money
from .clock import FROM, MEALS, TO, Sides

Var = cp_model.IntVar


@dataclass
class Choice:
    """A solution of the model: what the witness plan is written from."""

    nights: list[str]  # per night (of days 1 .. D-1): its city
    legs: dict[int, Leg]  # per travel day (0-based)
    meals: dict[int, Sides]  # per travel day: where its meals are eaten
    restaurants: dict[str, list[Restaurant]]  # per city (cuisine queries): its meals' restaurants
    day_trips: dict[int, str] = field(default_factory=dict)  # per stay day with a day trip: the city it visits
    lodging_nights: dict[str, int] = field(default_factory=dict)
    extra_sights: dict[str, int] = field(default_factory=dict)  # per city: sights beyond one a stay day (rich)
    cost: float = 0.0
    optimal: bool = False
    literals: list[Var] = field(default_factory=list)  # the model's literals of the route (for a cut)


@dataclass
class Option:
    """One leg variable of a transition: legs of one route and mode on several days share it (ground legs are
    the same on every day), a flight is its own."""

    legs: dict[int, Leg]  # day -> leg
    var: Var
    first: Leg = field(init=False)  # the legs differ only in their day

    def __post_init__(self) -> None:
        self.first = next(iter(self.legs.values()))


class PlanModel:
    """The model of ``candidates`` (a query and its pre-filtered rows), with the budget as a bound when given."""

    def __init__(self, candidates: Candidates, budget: float | None, time_limit: float = 60.0):
        self.c = candidates
        q = candidates.query
        self.days, self.n, self.people = q.days, q.visiting_city_number, q.people_number
        self.m = cp_model.CpModel()
        self.time_limit = time_limit
        self.scale = money([leg.cost for leg in candidates.legs] + [r.average_cost for c in candidates.cities
                                                                    for r in c.restaurants]
                           + [lod.night_cost for c in candidates.cities for lod in c.lodging.values()])
        self.index = {c.name: i for i, c in enumerate(candidates.cities)}
        self.counted = bool(candidates.cuisines) or candidates.rich  # meals and restaurants are variables
        self._route()
        self._sights()
        self._meals()
        self._costs(budget)

    # ------------------------------------------------------------------------------------------------ route

    def _route(self) -> None:
        m, cities, days, n = self.m, self.c.cities, self.days, self.n
        most = days - n  # the most nights one city can have
        self.z: list[dict[tuple[int, int], Var]] = []  # per position: (city, nights) -> chosen
        for k in range(n):
            nodes = {(i, nights): m.new_bool_var(f"pos{k}[{city.name}]x{nights}")
                     for i, city in enumerate(cities) for nights in range(1, most + 1)
                     if self._city_can_host(city, nights)}
            m.add_exactly_one(nodes.values())
            self.z.append(nodes)
        self.p = [[sum(v for (i, _), v in nodes.items() if i == c) for c in range(len(cities))] for nodes in self.z]
        for c in range(len(cities)):
            m.add(sum(self.p[k][c] for k in range(n)) <= 1)
        self.nights = [sum(nights * v for (_, nights), v in nodes.items()) for nodes in self.z]
        m.add(sum(self.nights) == days - 1)
        # transition t (0..n): t = 0 leaves the origin on day 0, t = n comes home on the last day, and transition
        # t in between leaves position t - 1 for position t on the day its nights add up to
        self.when: list[dict[int, Var]] = []
        for t in range(n + 1):
            if t == 0:
                self.when.append({0: m.new_constant(1)})
            elif t == n:
                self.when.append({days - 1: m.new_constant(1)})
            else:
                when = {d: m.new_bool_var(f"t{t}@{d}") for d in range(t, days - (n - t))}
                m.add_exactly_one(when.values())
                m.add(sum(d * v for d, v in when.items()) == sum(self.nights[:t]))
                self.when.append(when)
        self.options: list[list[Option]] = []
        for t in range(n + 1):
            grouped: dict[tuple, dict[int, Leg]] = {}
            for leg in self.c.legs:
                if leg.day not in self.when[t] or (t == 0) != (leg.origin == self.c.query.org and leg.day == 0) \
                        or (t == n) != (leg.destination == self.c.query.org and leg.day == days - 1):
                    continue
                key = (leg.origin, leg.destination, leg.mode, leg.text) if leg.mode != "flight" else (id(leg),)
                grouped.setdefault(key, {})[leg.day] = leg
            options = [Option(legs, m.new_bool_var(f"leg{t}:{next(iter(legs.values())).text}"))
                       for legs in grouped.values()]
            for option in options:
                if t not in (0, n) and len(option.legs) < len(self.when[t]):
                    m.add(option.var <= sum(self.when[t][d] for d in option.legs))
            m.add_exactly_one(o.var for o in options)
            leaving: dict[str, list[Var]] = {}
            arriving: dict[str, list[Var]] = {}
            for o in options:
                leaving.setdefault(o.first.origin, []).append(o.var)
                arriving.setdefault(o.first.destination, []).append(o.var)
            for c, city in enumerate(cities):
                if t > 0:
                    m.add(sum(leaving.get(city.name, [])) == self.p[t - 1][c])
                if t < n:
                    m.add(sum(arriving.get(city.name, [])) == self.p[t][c])
            self.options.append(options)
        kinds = {o.first.kind for options in self.options for o in options}
        if len(kinds) > 1:  # flights and taxis never with self-driving (Non-conf. Transportation): each
            drive = m.new_bool_var("self-driving")  # transition takes its one leg from the class of all
            for options in self.options:
                m.add(sum(o.var for o in options if o.first.kind == DRIVE) == drive)

    def _city_can_host(self, city: City, nights: int) -> bool:
        """A stay of ``nights`` nights needs a listing and, without cuisines asked, enough restaurants (a cuisine
        query counts its meals in the model)."""
        if nights not in city.lodging:
            return False
        return self.counted or len(set(city.groups)) >= 3 * (nights - 1)

    # ------------------------------------------------------------------------------------------------ sights

    def _sights(self) -> None:
        """One sight per stay day, each sight once: in the city, or on a day trip to a partner city."""
        m, cities = self.m, self.c.cities
        self.stays = [sum((nights - 1) * v for nodes in self.z for (i, nights), v in nodes.items() if i == c)
                      for c in range(len(cities))]
        self.trips: dict[tuple[int, str], Var] = {}
        into: dict[str, list[Var]] = {}
        for c, city in enumerate(cities):
            trips = []
            for other in city.day_trips:
                count = self.trips[(c, other)] = m.new_int_var(0, self.days, f"trips[{city.name}]->{other}")
                into.setdefault(other, []).append(count)
                trips.append(count)
            if city.name in self.c.stays:
                m.add(sum(trips) <= self.stays[c])
            else:  # no stay day fits here but a day trip's
                m.add(sum(trips) == self.stays[c])
        self.extra: dict[int, Var] = {}
        for c, city in enumerate(cities):
            own = self.stays[c] - sum(v for (k, _), v in self.trips.items() if k == c)
            if city.most_sights > 1:  # the rich objective: more sights on the stay days that fit them
                extra = self.extra[c] = m.new_int_var(0, (city.most_sights - 1) * self.days, f"extra[{city.name}]")
                m.add(extra <= (city.most_sights - 1) * own)
                own = own + extra
            m.add(own + sum(into.get(city.name, [])) <= len(city.attractions))
        for other, counts in into.items():
            if other not in self.index:
                m.add(sum(counts) <= len(self.c.sights[other]))

    # ------------------------------------------------------------------------------------------------ meals

    def _meals(self) -> None:
        """A cuisine query: which travel-day meals are eaten and where, and which restaurants serve the meals."""
        self.slots: dict[tuple[int, int, str], Var] = {}
        self.use: dict[tuple[int, int], Var] = {}
        if not self.counted:
            return
        m, cities, n = self.m, self.c.cities, self.n
        for t in range(n + 1):
            for k in range(len(MEALS)):
                sides = [s for s in (FROM, TO) if not (s == FROM and t == 0) and not (s == TO and t == n)]
                m.add_at_most_one(self.slots.setdefault((t, k, s), m.new_bool_var(f"meal{t}[{MEALS[k]}]@{s}"))
                               for s in sides)
        at = [[m.new_bool_var(f"at{k}[{city.name}]") for city in cities] for k in range(n)]
        for k in range(n):
            for c in range(len(cities)):
                m.add(at[k][c] == self.p[k][c])
        for c, city in enumerate(cities):
            travel = []
            for t in range(n + 1):
                for side, k in ((TO, t), (FROM, t - 1)):
                    if not 0 <= k < n:
                        continue
                    count = m.new_int_var(0, 3, f"meals{t}@{side}[{city.name}]")
                    m.add(count == sum(self.slots[(t, j, side)] for j in range(len(MEALS)))).only_enforce_if(at[k][c])
                    m.add(count == 0).only_enforce_if(at[k][c].negated())
                    travel.append(count)
            uses = [self.use.setdefault((c, r), m.new_bool_var(f"use[{city.name}][{r}]"))
                    for r in range(len(city.restaurants))]
            m.add(sum(uses) == 3 * self.stays[c] + sum(travel))
            groups: dict[int, list[Var]] = {}
            for r, group in enumerate(city.groups):
                groups.setdefault(group, []).append(uses[r])
            for members in groups.values():
                if len(members) > 1:
                    m.add_at_most_one(members)
        for cuisine in self.c.cuisines:
            m.add_bool_or([v for (c, r), v in self.use.items() if cuisine in cities[c].restaurants[r].cuisines]
                        or [m.new_constant(0)])
        for t, options in enumerate(self.options):
            for option in options:
                leg = option.first
                for pattern in _minimal_misfits(self.c.patterns[leg.day], leg.fits):
                    m.add_bool_or([option.var.negated(), *(self.slots[(t, k, side)].negated()
                                                     for k, side in enumerate(pattern) if side is not None)])

    # ------------------------------------------------------------------------------------------------ cost

    def _costs(self, budget: float | None) -> None:
        scale, people, cities = self.scale, self.people, self.c.cities
        terms = [round(o.first.cost * scale) * o.var for options in self.options for o in options]
        for nodes in self.z:
            for (c, nights), var in nodes.items():
                lodging = cities[c].lodging[nights].night_cost * nights
                meals = 0.0 if self.counted else people * cheapest_meals(cities[c], 3 * (nights - 1))
                terms.append(round((lodging + meals) * scale) * var)
        for (c, r), var in self.use.items():
            terms.append(round(cities[c].restaurants[r].average_cost * people * scale) * var)
        self.total = sum(terms)
        if budget is not None:
            self.m.add(self.total <= int(budget * scale + 1e-9))
        if self.c.rich:  # every item (a travel-day meal, a sight) is worth more than any cost
            worth = self._most_cost() + 1
            items = sum(self.slots.values()) + sum(self.extra.values())
            self.m.minimize(self.total - worth * items)
        else:
            self.m.minimize(self.total)

    def _most_cost(self) -> int:
        """More than any plan costs (scaled): the dearest leg of each transition, the dearest stay of each
        position, the dearest meal at every meal."""
        scale, cities = self.scale, self.c.cities
        legs = sum(max((o.first.cost for o in options), default=0) for options in self.options)
        stays = sum(max((cities[c].lodging[nights].night_cost * nights for c, nights in nodes), default=0)
                    for nodes in self.z)
        meal = max((r.average_cost for city in cities for r in city.restaurants), default=0)
        return int((legs + stays + 3 * self.days * meal * self.people) * scale) + 1

    # ------------------------------------------------------------------------------------------------ solving

    def solve(self) -> tuple[str, Choice | None]:
        """``("optimal" | "feasible" | "infeasible" | "unknown", the best choice found)``."""
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        # The limit is CP-SAT's deterministic time (about a second of one core each), not the wall clock: a busy
        # machine must not change which plan is found (synth's files are the same for the same seed).
        solver.parameters.max_deterministic_time = self.time_limit
        # Probing in presolve costs seconds on a state's hundreds of legs (each city implies its legs false) and
        # gains nothing here: the linear relaxation of the route network is what closes the search.
        solver.parameters.cp_model_probing_level = 0
        status = solver.solve(self.m)
        if status == cp_model.INFEASIBLE:
            return "infeasible", None
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return "unknown", None
        return ("optimal" if status == cp_model.OPTIMAL else "feasible"), self._decode(solver, status)

    def _decode(self, s: cp_model.CpSolver, status: Any) -> Choice:
        cities = self.c.cities
        route = [next(key for key, v in nodes.items() if s.value(v)) for nodes in self.z]
        literals = [nodes[key] for nodes, key in zip(self.z, route, strict=True)]
        nights = [cities[c].name for c, count in route for _ in range(count)]
        lodging = {cities[c].name: count for c, count in route}
        legs: dict[int, Leg] = {}
        meals: dict[int, Sides] = {}
        for t, options in enumerate(self.options):
            day = next(d for d, v in self.when[t].items() if s.value(v))
            option = next(o for o in options if s.value(o.var))
            literals.append(option.var)
            legs[day] = option.legs[day]
            eaten = [next((side for side in (FROM, TO) if (t, k, side) in self.slots
                           and s.value(self.slots[(t, k, side)])), None) for k in range(len(MEALS))]
            meals[day] = (eaten[0], eaten[1], eaten[2])
            literals += [self.slots[(t, k, side)] for k, side in enumerate(meals[day]) if side is not None]
        restaurants = {cities[c].name: [r for k, r in enumerate(cities[c].restaurants) if s.value(self.use[(c, k)])]
                       for c, _ in route} if self.counted else {}
        day_trips: dict[int, str] = {}
        first = 1
        for c, count in route:  # a city's day trips take its last stay days (its first may start late)
            stay_days = list(range(first, first + count - 1))
            trips = [other for (k, other), v in self.trips.items() if k == c for _ in range(s.value(v))]
            for day, other in zip(stay_days[len(stay_days) - len(trips):], trips, strict=True):
                day_trips[day] = other
            literals += [self._equals(v, s.value(v)) for (k, _), v in self.trips.items() if k == c]
            first += count
        extra = {cities[c].name: s.value(v) for c, v in self.extra.items() if s.value(v)}
        literals += [self._equals(v, s.value(v)) for v in self.extra.values()]
        return Choice(nights, legs, meals, restaurants, day_trips, lodging, extra, s.value(self.total) / self.scale,
                      status == cp_model.OPTIMAL, literals)

    def _equals(self, var: Var, value: int) -> Var:
        """A literal true exactly when ``var == value``."""
        literal = self.m.new_bool_var(f"{var.name}=={value}")
        self.m.add(var == value).only_enforce_if(literal)
        self.m.add(var != value).only_enforce_if(literal.negated())
        return literal

    def cut(self, choice: Choice) -> None:
        """Forbid ``choice``'s route (cities, nights, legs, travel-day meals, day trips): it leaves some day late."""
        self.m.add_bool_or([v.negated() for v in choice.literals])


def cheapest_meals(city: City, count: int) -> float:
    """What ``count`` meals for one person cost at the cheapest different restaurants (repeat groups) of ``city``."""
    return sum(r.average_cost for r in cheapest_restaurants(city, count))


def cheapest_restaurants(city: City, count: int) -> list[Restaurant]:
    """The ``count`` cheapest restaurants of ``city``, one per repeat group."""
    seen: set[int] = set()
    out: list[Restaurant] = []
    for row, group in zip(city.restaurants, city.groups, strict=True):
        if len(out) == count:
            break
        if group not in seen:
            seen.add(group)
            out.append(row)
    return out


def _minimal_misfits(patterns: Sequence[Sides], fits: dict[Sides, int]) -> list[Sides]:
    """The patterns of ``patterns`` that do not fit, none of whose smaller patterns misfits too."""
    misfits = [p for p in patterns if p not in fits]
    return [p for p in misfits if not any(q != p and _within(q, p) for q in misfits)]


def _within(small: Sides, big: Sides) -> bool:
    return all(s is None or s == b for s, b in zip(small, big, strict=True))

