"""planshape for OpenRLHF 0.10.2 to 0.11.x (``support.py``): a reward-function file, a multi-turn agent file and PlanPO
through a Ray worker setup hook. Importing this package does not import OpenRLHF; each module that needs it checks
its version.

- ``config``: one ``Shaper`` per process, the Ray runtime env, the run's global steps;
- ``support`` / ``version``: the supported releases (``SUPPORT``) and the installed one's check (``check_version``);
- ``check``: the launch preflight (``planshape openrlhf check``);
- ``data``: the prompt dataset (``planshape openrlhf prepare-data``);
- ``cli``: the ``planshape openrlhf`` command group and the thin files OpenRLHF loads by path;
- ``reward``: ``reward_func`` for ``--reward.remote_url FILE.py``;
- ``advantages``: the wrapper of ``RemoteExperienceMaker.compute_advantages_and_returns``;
- ``tools``: the TravelPlanner tool environment (the agent) for ``--train.agent_func_path FILE.py``;
- ``register``: ``install``, the ``worker_process_setup_hook`` that applies ``advantages`` in the trainer actor.
"""

CONFIG_ENV = "PLANSHAPE_CONFIG"
"""The environment variable naming the planshape config (a JSON/YAML file or JSON text) for the setup hook."""

SETUP_HOOK = "planshape.adapters.openrlhf.register.install"
"""The ``worker_process_setup_hook`` value of a planshape run's Ray runtime env."""

__all__ = ["CONFIG_ENV", "SETUP_HOOK"]
