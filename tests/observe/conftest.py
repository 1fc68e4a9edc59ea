"""Fixtures shared by the observability tests."""

from tests.stall_probe import stall_plugin

__all__ = ["stall_plugin"]
