"""The serve suite's fixtures (the 45 gold answers, the in-process facade) for the Ray Serve suite."""

from tests.serve.conftest import gold, shaper

__all__ = ["gold", "shaper"]
