"""planshape's TravelPlanner tool environment for OpenRLHF: ``--train.agent_func_path /path/to/agent_func.py``.

OpenRLHF loads this file by path in every vLLM rollout actor and instantiates ``AgentExecutor()``. The planshape
config is ``PLANSHAPE_CONFIG`` when set, else ``planshape.json`` beside this file. Edit the settings here:
``max_turns`` (Planner-R1: 30), ``max_calls_per_turn``, and ``feedback_template``, the tool turn of your model's
chat template (the default is Qwen's ChatML).
"""

import os
from pathlib import Path

from planshape.adapters.openrlhf.tools import AgentSettings, agent_executor

CONFIG = os.environ.get("PLANSHAPE_CONFIG") or str(Path(__file__).with_name("planshape.json"))

AgentExecutor = agent_executor(AgentSettings(config=CONFIG, max_turns=30, max_calls_per_turn=1))
