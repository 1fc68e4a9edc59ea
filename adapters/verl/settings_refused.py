"""VERL settings that would change rewards or advantages behind planshape's back, refused at start-up (issue 30).

A registered estimator gets the token rewards, the mask, the group ids and the ``algorithm`` section; VERL's own
advantage options reach it only through that section, and a reward manager's options only the manager that reads
them. Each setting below is honoured by planshape or refused here, by ``planshape verl check``, by the planshape
reward manager when it starts and by the estimator before its first advantages:

* ``algorithm.norm_adv_by_std_in_grpo``: VERL's GRPO switch; planshape's estimators normalise with their own
  options, so ``false`` would be ignored: refused, naming the planshape option that does it;
* ``algorithm.use_kl_in_reward``: VERL subtracts the KL from the token rewards; the estimator reads each sample's
  score as their sum, so GRPO sees it as VERL's own GRPO does, but PlanPO's success, read from the score, would
  not: refused where success is read from the reward (``success.by`` threshold or pass);
* ``algorithm.gamma`` / ``algorithm.lam``: the discount and GAE λ of VERL's own estimators, which a registered
  estimator is not passed; GiGPO's discount is its own option, so another value than 1.0 would be ignored: refused,
  naming ``+algorithm.planpo.estimator_options.gamma`` (verl-agent's scripts set ``algorithm.gamma=0.95`` for it);
* ``reward.reward_kwargs.overlong_buffer_cfg`` (DAPO's overlong penalty, applied by VERL's ``dapo`` manager only):
  the planshape manager would ignore it, and under ``dapo`` it lowers the score PlanPO reads success from:
  refused in both cases; under ``dapo`` with GRPO it is honoured (VERL adds it to the score the estimator sums).
"""

from __future__ import annotations

from typing import Any

from planshape.shaping.facade import ConfigError, Shaper

PLANPO = "planpo"


def overlong_penalty_on(config: Any) -> bool:
    """DAPO's overlong penalty is enabled in a trainer config (``reward.reward_kwargs.overlong_buffer_cfg``)."""
    reward = config.get("reward") if config is not None else None
    kwargs = (reward.get("reward_kwargs") if reward is not None else None) or {}
    buffer = kwargs.get("overlong_buffer_cfg") or {}
    return bool(buffer.get("enable", False))


def _success_from_reward(shaper: Shaper) -> bool:
    return shaper.config.estimator == PLANPO and shaper.config.success.by != "flag"


def algorithm_refusals(algorithm: Any, shaper: Shaper) -> list[str]:
    """What the ``algorithm`` section sets that the planpo estimator with ``shaper`` would not do."""
    out = []
    if algorithm.get("norm_adv_by_std_in_grpo", True) is False:
        option = ("+algorithm.planpo.estimator_options.norm_by_std=false" if shaper.config.estimator == "grpo" else
                  "+algorithm.planpo.estimator_options.norm=none")
        out.append("algorithm.norm_adv_by_std_in_grpo=false is VERL's GRPO switch, which the planpo estimator "
                   f"does not read: planshape's estimators normalise with their own options; set {option} and "
                   "leave algorithm.norm_adv_by_std_in_grpo at true")
    for key in ("gamma", "lam"):
        value = algorithm.get(key, 1.0)
        if value is not None and float(value) != 1.0:
            discount = (f"GiGPO's discount is +algorithm.planpo.estimator_options.gamma={value} (its default 0.95 is "
                        "the paper's)" if key == "gamma" else "no planshape estimator uses a GAE λ")
            out.append(f"algorithm.{key}={value} is a setting of VERL's own estimators, which the planpo estimator is "
                       f"not passed: {discount}; leave algorithm.{key} at 1.0")
    if algorithm.get("use_kl_in_reward", False) and _success_from_reward(shaper):
        out.append("algorithm.use_kl_in_reward=true lowers each sample's score by its KL, and PlanPO reads success "
                   f"from that score (success.by={shaper.config.success.by}): successes would count as failures; "
                   "use actor_rollout_ref.actor.use_kl_loss=true (KL as a loss term) and "
                   "algorithm.use_kl_in_reward=false")
    return out


def reward_refusals(config: Any, shaper: Shaper, manager: str) -> list[str]:
    """What the ``reward`` section sets that ``manager`` with ``shaper`` would drop or get wrong."""
    if not overlong_penalty_on(config):
        return []
    if manager == "planshape":
        return ["reward.reward_kwargs.overlong_buffer_cfg.enable=true: DAPO's overlong penalty is applied by VERL's "
                "dapo reward manager only, so the planshape manager would ignore it; drop it, or use "
                "reward.reward_manager.name=dapo with reward.custom_reward_function.path="
                "pkg://planshape.adapters.verl.reward and +algorithm.planpo.estimator=grpo"]
    if manager == "dapo" and _success_from_reward(shaper):
        return ["reward.reward_kwargs.overlong_buffer_cfg.enable=true lowers the score of long answers, and PlanPO "
                f"reads success from that score (success.by={shaper.config.success.by}): a long success would "
                "count as a failure; drop the overlong penalty, or use +algorithm.planpo.estimator=grpo"]
    return []


def refuse(reasons: list[str]) -> None:
    if reasons:
        raise ConfigError("; ".join(reasons))
