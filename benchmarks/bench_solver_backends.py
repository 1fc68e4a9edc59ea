"""Why the solver is CP-SAT: the same route model (planshape's ``PlanModel``, its cuisine part left out) built in
OR-Tools CP-SAT and in Z3's optimiser from the same candidates, solved to the proven optimum, CPU time side by side.

    python benchmarks/bench_solver_backends.py [--database DIR] [--queries FILE] [--rows 0,5,12,20,38] [--z3-limit 60]

Needs ``z3-solver`` (``pip install z3-solver``; not a planshape dependency). Both get the model of the query's
cities (positions of (city, nights) nodes, one leg per transition on the day the nights add up to, one transport
class, sights with day trips, the cost tables, the budget) and minimise the cost; each is given one thread. Prints
the optimum each proves (they must agree) and the CPU seconds, and the ratio Z3 / CP-SAT. Z3 is stopped at
``--z3-limit`` seconds (shown as ">limit").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from planshape.validators.travelplanner import load_database, load_queries
from planshape.validators.travelplanner.query import Query
from planshape.validators.travelplanner.solver.candidates import DRIVE, build
from planshape.validators.travelplanner.solver.model import PlanModel, cheapest_meals

SHARED = Path(__file__).resolve().parents[2] / "shared" / "travelplanner"


def cp_sat(query: Query, store) -> tuple[float, float]:
    """(optimum, CPU seconds) of planshape's CP-SAT model, without its cuisine part."""
    started = time.process_time()
    candidates = build(store, query.model_copy(update={"local_constraint": query.local_constraint.model_copy(
        update={"cuisine": None})}))
    model = PlanModel(candidates, query.budget)
    status, choice = model.solve()
    return (choice.cost if choice else float("nan")), time.process_time() - started


def z3_model(query: Query, store, limit: float) -> tuple[float, float]:
    """(optimum, CPU seconds) of the same model written for Z3's ``Optimize``."""
    import z3

    started = time.process_time()
    q = query.model_copy(update={"local_constraint": query.local_constraint.model_copy(update={"cuisine": None})})
    c = build(store, q)
    days, n, cities = q.days, q.visiting_city_number, c.cities
    opt = z3.Optimize()
    opt.set("timeout", int(limit * 1000))
    cost_terms = []
    z = []
    for k in range(n):
        nodes = {(i, nights): z3.Bool(f"z{k}_{i}_{nights}") for i, city in enumerate(cities)
                 for nights in range(1, days - n + 1) if nights in city.lodging
                 and len(set(city.groups)) >= 3 * (nights - 1)}
        opt.add(z3.PbEq([(v, 1) for v in nodes.values()], 1))
        for (i, nights), v in nodes.items():
            lodging = cities[i].lodging[nights].night_cost * nights
            cost_terms.append(z3.If(v, int(lodging + q.people_number * cheapest_meals(cities[i], 3 * (nights - 1))),
                                    0))
        z.append(nodes)

    def at(k: int, i: int):
        return z3.Sum([z3.If(v, 1, 0) for (j, _), v in z[k].items() if j == i])

    for i in range(len(cities)):
        opt.add(z3.Sum([at(k, i) for k in range(n)]) <= 1)
    nights = [z3.Sum([z3.If(v, m, 0) for (_, m), v in nodes.items()]) for nodes in z]
    opt.add(z3.Sum(nights) == days - 1)
    drive = z3.Bool("drive")
    for t in range(n + 1):
        day = 0 if t == 0 else days - 1 if t == n else z3.Sum(nights[:t])
        legs = [g for g in c.legs if (t == 0 and g.day == 0) or (t == n and g.day == days - 1)
                or (0 < t < n and 0 < g.day < days - 1)]
        x = {id(g): z3.Bool(f"x{t}_{id(g)}") for g in legs}
        opt.add(z3.PbEq([(v, 1) for v in x.values()], 1))
        for g in legs:
            if 0 < t < n:
                opt.add(z3.Implies(x[id(g)], day == g.day))
            opt.add(z3.Implies(x[id(g)], drive if g.kind == DRIVE else z3.Not(drive)))
            cost_terms.append(z3.If(x[id(g)], int(g.cost), 0))
        for i, city in enumerate(cities):
            if t > 0:
                opt.add(z3.Sum([z3.If(x[id(g)], 1, 0) for g in legs if g.origin == city.name]) == at(t - 1, i))
            if t < n:
                opt.add(z3.Sum([z3.If(x[id(g)], 1, 0) for g in legs if g.destination == city.name]) == at(t, i))
    stays = [z3.Sum([z3.If(v, m - 1, 0) for nodes in z for (j, m), v in nodes.items() if j == i])
             for i in range(len(cities))]
    trips = {(i, other): z3.Int(f"trip_{i}_{other}") for i, city in enumerate(cities) for other in city.day_trips}
    index = {city.name: i for i, city in enumerate(cities)}
    for i, city in enumerate(cities):  # one sight a stay day, in the city or on a day trip
        own = [v for (j, _), v in trips.items() if j == i]
        for v in own:
            opt.add(v >= 0)
        opt.add((z3.Sum(own) if own else 0) <= stays[i] if city.name in c.stays else
                (z3.Sum(own) if own else 0) == stays[i])
        into = [v for (_, other), v in trips.items() if other == city.name]
        opt.add(stays[i] - (z3.Sum(own) if own else 0) + (z3.Sum(into) if into else 0) <= len(city.attractions))
    for other, sights in c.sights.items():
        into = [v for (_, o), v in trips.items() if o == other]
        if other not in index and into:
            opt.add(z3.Sum(into) <= len(sights))
    total = z3.Sum(cost_terms)
    opt.add(total <= int(q.budget))
    handle = opt.minimize(total)
    result = opt.check()
    value = float(opt.lower(handle).as_long()) if result == z3.sat else float("nan")
    return value, time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default=str(SHARED / "database"))
    parser.add_argument("--queries", default=str(SHARED / "train.csv"))
    parser.add_argument("--rows", default="0,5,8,10,12,20,26", help="0-based rows of the queries file")
    parser.add_argument("--z3-limit", type=float, default=60.0, help="Z3's time limit per query, in seconds")
    args = parser.parse_args(argv)
    try:
        import z3  # noqa: F401
    except ImportError:
        print("bench_solver_backends: needs z3-solver (pip install z3-solver)", file=sys.stderr)
        return 1
    store = load_database(args.database)
    queries = load_queries(args.queries)
    print(f"{'row':>4} {'query':<34} {'CP-SAT opt':>10} {'CPU s':>7} {'Z3 opt':>9} {'CPU s':>8} {'Z3/CP-SAT':>9}")
    ratios = []
    for row in (int(r) for r in args.rows.split(",")):
        q = queries[row]
        ours, ours_s = cp_sat(q, store)
        theirs, theirs_s = z3_model(q, store, args.z3_limit)
        capped = theirs != theirs  # no optimum proven within the limit (NaN)
        ratios.append(theirs_s / ours_s)
        label = f"{q.org} -> {q.dest}, {q.days} days"[:34]
        print(f"{row:>4} {label:<34} {ours:>10.0f} {ours_s:>7.3f} {theirs:>9.0f} "
              f"{'>' if capped else ' '}{theirs_s:>7.2f} {theirs_s / ours_s:>8.0f}x")
        if not capped and abs(ours - theirs) > 1e-6:
            print(f"  optima differ: {ours} vs {theirs}", file=sys.stderr)
            return 1
    print(f"median Z3 / CP-SAT CPU time: {statistics.median(ratios):.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
