"""Fixtures shared by the observability tests."""

import pytest
from planshape.shaping import plugins

from .stall_helpers import install_stall_plugin


@pytest.fixture
def stall_plugin(tmp_path, monkeypatch):
    """The stall probe, found through its entry point here and in every worker started meanwhile."""
    monkeypatch.syspath_prepend(str(install_stall_plugin(tmp_path / "plugin")))
    plugins.reset()
    yield
    plugins.reset()
