"""Fixtures of the verifiers environment suite. Runs in .venv-verifiers (scripts/setup-verifiers.sh); elsewhere it
skips. Nothing is downloaded at test time: the harness's uv environment was resolved by the setup script."""

from __future__ import annotations

import pytest

pytest.importorskip("verifiers", reason="the verifiers suite runs in .venv-verifiers: bash scripts/test.sh verifiers")
