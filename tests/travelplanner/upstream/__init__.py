"""The upstream evaluator's verdicts on the replay set, recorded by ``record.py`` (issue 30)."""
