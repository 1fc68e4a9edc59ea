"""NeMo Gym's entrypoint for the scripted model (``tests/nemo_gym/scripted_model.py``) as a model server: its
script is the JSON file its config block names (``script``), served on the port NeMo Gym assigned it."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))  # the checkout root: tests.nemo_gym

from tests.nemo_gym.scripted_model import ScriptedResponses  # noqa: E402

if __name__ == "__main__":
    config = yaml.safe_load(os.environ["NEMO_GYM_CONFIG_DICT"])
    block = next(iter(config[os.environ["NEMO_GYM_CONFIG_PATH"]]["responses_api_models"].values()))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with ScriptedResponses(json.loads(Path(block["script"]).read_text()), port=int(block["port"])):
        stop.wait()
