"""The checks and their modes: the registry of the 8 commonsense and 5 hard checks (``registry``), one plan
under check (``trip``, ``plan_memo``), the checks themselves (``commonsense``, ``hard``; strict's claim checks
in ``place_form``, ``stated_values``, ``whereabouts``), the ``official`` / ``strict`` modes (``modes``), the
verdicts of one plan (``verdicts.check_plan``), and the reward-hacking monitor's second pass (``monitor``,
``lookups``). A new check goes in ``commonsense`` or ``hard`` and its registry entry (docs/hooks.md)."""
