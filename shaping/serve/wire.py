"""The three reward-server wire formats trainers already send, read into samples and answered from scores.

* OpenRLHF (``--reward.remote_url http://host:port/get_reward``, ``openrlhf/utils/agent.py``): a batch
  ``{"query": [prompt + response], "prompts": [...], "labels": [...]}``; the reply ``{"rewards", "scores",
  "extra_logs"}`` with the same ``extra_logs`` keys in every reply (OpenRLHF concatenates them key by key). 0.11.0
  sends an empty batch to every URL but the first: it gets an empty reply, never an error.
* slime / miles (``--rm-type remote_rm --rm-url URL``, ``slime/rollout/rm_hub/__init__.py``): one sample
  ``{"prompt", "response", "label"}``; the reply is an object with a float ``reward`` (``--reward-key reward``)
  and the components.
* NeMo Gym 0.7 (a resources server, ``nemo_gym/base_resources_server.py``): ``/seed_session`` (an agent's run
  request, answered ``{}``, or an Environment Server's ``ResourcesSeedSessionRequest``, answered with its
  ``resources_session_id``; both set a session cookie), ``/verify`` (the dataset row, the query's fields flat or a
  ``label``, with ``responses_create_params`` and the agent's final ``response``; the reply echoes the request, as
  the agent validates it against ``BaseVerifyResponse``, with ``reward`` beside it and, when scoring failed for a
  reason that is not the model's, ``mask_sample`` with ``failure_kind`` and ``failure_reason``),
  ``/close_session``, ``/aggregate_metrics`` (``AggregateMetrics`` over the verify responses) and
  ``/reverify_mode``.

What a model wrote never makes a request fail: a bad answer, or a label that is not a query, is a sample with a
failing score. Only a request that is not of the format is refused (``BadRequest``, a 4xx naming the problem).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..components import CRASH, ERROR, TIMEOUT
from ..facade import SampleScore, Shaper, metric_name, response_text, trainer_step, turn_cap_reason
from .limits import BadRequest

__all__ = ["BadRequest", "Sample", "aggregate_metrics", "close_reply", "final_message", "model_turns", "nemo_reply",
           "openrlhf_reply", "read_nemo", "read_openrlhf", "read_slime", "request_step", "score_fields", "seed_reply"]


@dataclass(frozen=True)
class Sample:
    """One output to score: the model's text, its query label as sent, and the step the request named."""

    text: str
    label: Any
    step: int | None = None
    cut: str | None = None  # why the episode has no answer though it may hold one (a transcript past the turn cap)


def request_step(body: Mapping[str, Any]) -> int | None:
    """The optional ``step`` of a request body (optimizer steps completed; planshape's own clients send it)."""
    if "step" not in body or body["step"] is None:
        return None
    try:
        return trainer_step(body["step"], "step")
    except ValueError as exc:
        raise BadRequest(str(exc)) from None


def _list(body: Mapping[str, Any], key: str, limit: int) -> list[Any]:
    value = body.get(key)
    if key not in body:
        raise BadRequest(f"missing field {key!r}: OpenRLHF sends query, prompts and labels as lists")
    if not isinstance(value, list):
        raise BadRequest(f"field {key!r} must be a list, got {type(value).__name__}")
    if len(value) > limit:
        raise BadRequest(f"field {key!r} has {len(value)} items; this server takes at most {limit} per request "
                         "(--max-samples)", 413)
    return value


def read_openrlhf(body: Any, limit: int) -> list[Sample]:
    """OpenRLHF's batch: one sample per ``query``; ``prompts`` and ``labels`` of the same length."""
    body = _object(body)
    queries, prompts, labels = (_list(body, key, limit) for key in ("query", "prompts", "labels"))
    if not len(queries) == len(prompts) == len(labels):
        raise BadRequest(f"query, prompts and labels must have one item per sample, got {len(queries)}, "
                         f"{len(prompts)} and {len(labels)}")
    step = request_step(body)
    for i, query in enumerate(queries):
        if not isinstance(query, str):
            raise BadRequest(f"query[{i}] must be a string (the prompt and response text), got {type(query).__name__}")
    return [Sample(response_text(q, p), label, step) for q, p, label in zip(queries, prompts, labels, strict=True)]


def openrlhf_reply(shaper: Shaper, scores: Sequence[SampleScore]) -> dict[str, Any]:
    """``rewards``, ``scores`` (the 0/1 success OpenRLHF's dynamic filtering reads) and ``extra_logs`` (every
    name of ``shaper.metric_names``, one value per sample, in every reply)."""
    if len(scores) == 1:  # what OpenRLHF 0.11 sends: one column of one value per metric
        columns = {name: [value] for name, value in scores[0].metrics().items()}
    else:
        columns = shaper.metric_columns(scores)
    return {"rewards": [float(s.reward) for s in scores], "scores": [float(s.success) for s in scores],
            "extra_logs": columns}


def read_slime(body: Any) -> Sample:
    """slime's one sample: ``response`` the generated text, ``label`` the query (``prompt`` is not read)."""
    body = _object(body)
    for key in ("response", "label"):
        if key not in body:
            raise BadRequest(f"missing field {key!r}: slime's remote_rm sends prompt, response and label")
    if not isinstance(body["response"], str):
        raise BadRequest(f"field 'response' must be a string, got {type(body['response']).__name__}")
    return Sample(body["response"], body["label"], request_step(body))


def score_fields(score: SampleScore) -> dict[str, Any]:
    """What every per-sample reply carries: the reward, success, failure and its reason, stage, step, the
    components and every metric (``planshape/<name>``)."""
    return {"reward": float(score.reward), "success": bool(score.success), "failure": score.failure,
            "reason": score.reason, "stage": score.stage, "step": score.step,
            "components": {k: float(v) for k, v in score.components.items()}, "metrics": score.metrics()}


NEMO_FIELDS = frozenset({"responses_create_params", "response", "agent_ref"})
"""Keys of a NeMo Gym verify request that are not the task's own fields (besides ``_ng_*`` and ``label``)."""
SESSION_COOKIE = "planshape_session"
"""The cookie ``/seed_session`` sets (NeMo Gym's Environment Server requires one); the server keeps no state by it:
a verify request carries all it scores."""
MASKED_FAILURES = {CRASH: "verifier_error", TIMEOUT: "verifier_error", ERROR: "verifier_error"}
"""Failure categories that are no measurement of the model (the scoring process died, ran past its budget, or the
label or scorer failed), as NeMo Gym's ``failure_kinds`` name them: the sample is masked, not trained on as 0."""
REVERIFY_MODE = "stateless"
"""A verify reply depends on its request alone, so NeMo Gym may reverify a stored rollout (``ReverifyMode``)."""


def read_nemo(body: Any, max_turns: int | None = None) -> Sample:
    """NeMo Gym's verify request: the answer is the final output item when it is an assistant message; the
    query is ``label`` when given, else the row's own fields (everything but NeMo Gym's keys). A transcript of
    more than ``max_turns`` model turns, or of ``max_turns`` without a final message (the agent's ``max_steps``
    stopped it there), is an episode the turn cap ended: ``cut`` says so."""
    body = _object(body)
    if not isinstance(body.get("responses_create_params"), Mapping):
        raise BadRequest("field 'responses_create_params' must be an object (NeMo Gym's verify request)")
    response = body.get("response")
    if not isinstance(response, Mapping) or not isinstance(response.get("output"), list):
        raise BadRequest("field 'response' must be a Responses object with an 'output' list (NeMo Gym's verify "
                         "request)")
    label = body["label"] if "label" in body else {
        k: v for k, v in body.items() if k not in NEMO_FIELDS and not k.startswith("_ng_")}
    output = response["output"]
    text, turns = final_message(output), model_turns(output)
    capped = max_turns is not None and (turns > max_turns or (turns == max_turns and not text))
    return Sample(text, label, cut=turn_cap_reason(max_turns) if capped else None)  # type: ignore[arg-type]


def model_turns(output: list[Any]) -> int:
    """The model's turns in a Responses transcript: the runs of items between tool results (each model call's
    items, its function calls included, come before the results of those calls)."""
    turns, in_turn = 0, False
    for item in output:
        result = isinstance(item, Mapping) and item.get("type") == "function_call_output"
        if not result and not in_turn:
            turns += 1
        in_turn = not result
    return turns


def final_message(output: list[Any]) -> str:
    """The text of the output's last item when it is an assistant message (its ``output_text`` parts), else ""
    (no final answer: the sample scores as no answer)."""
    if not output:
        return ""
    last = output[-1]
    if not isinstance(last, Mapping) or last.get("type", "message") != "message" or last.get("role") != "assistant":
        return ""
    content = last.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(part["text"] for part in content
                   if isinstance(part, Mapping) and part.get("type") == "output_text" and isinstance(part.get("text"),
                                                                                                   str))


def nemo_reply(body: Mapping[str, Any], score: SampleScore) -> dict[str, Any]:
    """The request echoed (``responses_create_params``, ``response`` and the task fields, as NeMo Gym's agent
    validates it), with ``reward``, ``reward_components`` and every metric as a top-level number (NeMo Gym's
    aggregate metrics read top-level numeric fields only); a failure that is not the model's is masked
    (``mask_sample``, ``failure_kind``, ``failure_reason``), so NeMo Gym does not count it as a reward of 0."""
    fields = score_fields(score)
    kind = MASKED_FAILURES.get(score.failure)
    return {**body, **score.metrics(), "reward": fields["reward"], "reward_components": fields["components"],
            "success": fields["success"], "failure": fields["failure"], "reason": fields["reason"],
            "stage": fields["stage"], "step": fields["step"], "mask_sample": kind is not None,
            "failure_kind": kind, "failure_reason": f"{score.failure}: {score.reason}" if kind else None}


def seed_reply(body: Any) -> tuple[dict[str, Any], str]:
    """``/seed_session``: (the reply, the session id for the cookie). An Environment Server's typed seed
    (``resources_session_id``, ``episode_id``, ``task_id``, ``task_data``) gets its id back; an agent's run
    request (``responses_create_params`` and the row) gets ``{}``."""
    body = _object(body)
    if "resources_session_id" in body:
        session = body["resources_session_id"]
        if not isinstance(session, str) or not session:
            raise BadRequest("field 'resources_session_id' must be a non-empty string (NeMo Gym's "
                             "ResourcesSeedSessionRequest)")
        for key in ("episode_id", "task_id", "task_data"):
            if key not in body:
                raise BadRequest(f"missing field {key!r}: NeMo Gym's ResourcesSeedSessionRequest sends "
                                 "resources_session_id, episode_id, task_id and task_data")
        return {"resources_session_id": session}, session
    return {}, ""


def close_reply(body: Any) -> dict[str, Any]:
    """``/close_session``: the closed ``resources_session_id`` (nothing is kept per session, so any id closes)."""
    body = _object(body)
    session = body.get("resources_session_id")
    if not isinstance(session, str):
        raise BadRequest("field 'resources_session_id' must be a string (NeMo Gym's ResourcesCloseSessionRequest)")
    return {"resources_session_id": session}


TASK_INDEX, ROLLOUT_INDEX = "_ng_task_index", "_ng_rollout_index"


def aggregate_metrics(body: Any, names: Sequence[str]) -> dict[str, Any]:
    """``/aggregate_metrics``: NeMo Gym's ``AggregateMetrics`` over the verify responses it collected (stripped of
    ``response`` and the request). Masked samples are left out of every mean and counted as ``masked``;
    ``agent_metrics`` has the mean of ``reward`` and of every planshape metric (``mean/<name>``), ``key_metrics``
    the reward, the success rate and the pass rate, ``group_level_metrics`` one entry per task, and
    ``repeat_level_metrics`` one per rollout index when a task was rolled out more than once."""
    body = _object(body)
    rows = body.get("verify_responses")
    if not isinstance(rows, list) or not all(isinstance(r, Mapping) for r in rows):
        raise BadRequest("field 'verify_responses' must be a list of objects (NeMo Gym's AggregateMetricsRequest)")
    kept = [r for r in rows if not r.get("mask_sample")]
    columns = ("reward", *names)
    agent = {f"mean/{name}": _mean(kept, name) for name in columns}
    agent.update(rollouts=len(rows), masked=len(rows) - len(kept))
    key = {"mean/reward": agent["mean/reward"], "mean/planshape/success": agent.get("mean/planshape/success", 0.0),
           "mean/planshape/pass": agent.get("mean/planshape/pass", 0.0), "masked": agent["masked"]}
    return {"agent_metrics": agent, "key_metrics": key,
            "group_level_metrics": _grouped(kept, TASK_INDEX), "repeat_level_metrics": (
                _grouped(kept, ROLLOUT_INDEX) if len({r.get(ROLLOUT_INDEX) for r in kept}) > 1 else [])}


def _number(value: Any) -> float | None:
    """A JSON number (a boolean counts as 0/1); anything else None."""
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def _mean(rows: Sequence[Mapping[str, Any]], name: str) -> float:
    values = [v for v in (_number(r.get(name)) for r in rows) if v is not None]
    return sum(values) / len(values) if values else 0.0


PASS_METRIC = metric_name("pass")  # the final pass, as every trainer logs it (observe/metric_names)


def _grouped(rows: Sequence[Mapping[str, Any]], key: str) -> list[dict[str, Any]]:
    groups: dict[Any, list[Mapping[str, Any]]] = {}
    for row in rows:
        if isinstance(row.get(key), int):
            groups.setdefault(row[key], []).append(row)
    out = []
    for index in sorted(groups):
        members = groups[index]
        rewards = [v for v in (_number(r.get("reward")) for r in members) if v is not None]
        out.append({key: index, "rollouts": len(members), "mean/reward": _mean(members, "reward"),
                    "max/reward": max(rewards, default=0.0), "min/reward": min(rewards, default=0.0),
                    f"mean/{PASS_METRIC}": _mean(members, PASS_METRIC)})
    return out


def _object(body: Any) -> Mapping[str, Any]:
    if not isinstance(body, Mapping):
        raise BadRequest(f"the request body must be a JSON object, got {_json_type(body)}")
    return body


def _json_type(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number",
            type(None): "null"}.get(type(value), type(value).__name__)
