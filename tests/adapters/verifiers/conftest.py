"""The verifiers environment suite runs in .venv-verifiers (scripts/setup-verifiers.sh); elsewhere it skips
(``tests/adapters/conftest.py``). Nothing is downloaded at test time: the harness's uv environment was resolved by
the setup script."""
