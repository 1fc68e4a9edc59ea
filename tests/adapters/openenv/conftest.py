"""Fixtures of the OpenEnv suite: the TravelPlanner server on the full database, served by uvicorn on 127.0.0.1 in
a background thread. Runs in .venv-openenv (scripts/setup-openenv.sh); elsewhere it skips
(``tests/adapters/conftest.py``)."""

from __future__ import annotations

import socket
import threading
import time

import pytest


class Served:
    """An app served on a free loopback port until ``close``."""

    def __init__(self, app):
        import uvicorn

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@pytest.fixture(scope="module")
def settings(shared_dir):
    return {"database": str(shared_dir / "database"), "mode": "strict"}


@pytest.fixture(scope="module")
def served(shared_dir, settings):
    from planshape.adapters.openenv.server import build_app

    served = Served(build_app(settings, [str(shared_dir / "train.csv")]))
    yield served
    served.close()


@pytest.fixture(scope="module")
def shaper(settings):
    from planshape.shaping.facade import Shaper

    return Shaper.from_mapping({**settings, "total_steps": 1})
