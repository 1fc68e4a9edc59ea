"""New TravelPlanner queries drawn from the database in the benchmark's own shape, each kept only with a witness
plan from the solver (``fields``: what a query asks, ``phrasing``: its text, ``generate``: the loop). Needs the
solver, so OR-Tools (``pip install 'planshape[solver]'``)."""
