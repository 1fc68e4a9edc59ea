"""planshape's reward for OpenRLHF: ``--reward.remote_url /path/to/reward_func.py``.

OpenRLHF loads this file by path in every vLLM rollout actor and calls ``reward_func(queries, prompts, labels)``.
The planshape config is ``PLANSHAPE_CONFIG`` when set (the Ray runtime env carries it to every node), else
``planshape.json`` beside this file (``planshape openrlhf files -o DIR --config FILE`` writes both).
"""

import os
from pathlib import Path

from planshape.adapters.openrlhf.reward import make_reward_func

reward_func = make_reward_func(os.environ.get("PLANSHAPE_CONFIG") or str(Path(__file__).with_name("planshape.json")))
