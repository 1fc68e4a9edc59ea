"""planshape for OpenRLHF 0.11.x: a reward-function file, a multi-turn agent file and PlanPO through a Ray worker
setup hook. Importing this package does not import OpenRLHF; each module that needs it checks its version.

- ``reward``: ``reward_func`` for ``--reward.remote_url FILE.py``;
- ``agent``: the TravelPlanner tool environment for ``--train.agent_func_path FILE.py``;
- ``advantages``: the wrapper of ``RemoteExperienceMaker.compute_advantages_and_returns``;
- ``setup_hook``: ``install``, the ``worker_process_setup_hook`` that applies it inside the trainer actor;
- ``files``: the thin files OpenRLHF loads by path (``planshape openrlhf files -o DIR``).
"""

CONFIG_ENV = "PLANSHAPE_CONFIG"
"""The environment variable naming the planshape config (a JSON/YAML file or JSON text) for the setup hook."""

SETUP_HOOK = "planshape.adapters.openrlhf.setup_hook.install"
"""The ``worker_process_setup_hook`` value of a planshape run's Ray runtime env."""

__all__ = ["CONFIG_ENV", "SETUP_HOOK"]
