"""The three reward-server wire formats trainers already send, read into samples and answered from scores.

* OpenRLHF (``--reward.remote_url http://host:port/get_reward``, ``openrlhf/utils/agent.py``): a batch
  ``{"query": [prompt + response], "prompts": [...], "labels": [...]}``; the reply ``{"rewards", "scores",
  "extra_logs"}`` with the same ``extra_logs`` keys in every reply (OpenRLHF concatenates them key by key). 0.11.0
  sends an empty batch to every URL but the first: it gets an empty reply, never an error.
* slime / miles (``--rm-type remote_rm --rm-url URL``, ``slime/rollout/rm_hub/__init__.py``): one sample
  ``{"prompt", "response", "label"}``; the reply is an object with a float ``reward`` (``--reward-key reward``)
  and the components.
* NeMo Gym (``POST /verify``, ``nemo_gym/base_resources_server.py``): the dataset row (the query's fields flat,
  or a ``label``) with ``responses_create_params`` and the agent's final ``response``; the reply echoes the
  request, as the agent validates it against ``BaseVerifyResponse``, with ``reward`` beside it.

What a model wrote never makes a request fail: a bad answer, or a label that is not a query, is a sample with a
failing score. Only a request that is not of the format is refused (``BadRequest``, a 4xx naming the problem).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..facade import SampleScore, Shaper, response_text, trainer_step


class BadRequest(Exception):
    """A request the server cannot read: ``status`` (4xx) and a message naming the problem."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Sample:
    """One output to score: the model's text, its query label as sent, and the step the request named."""

    text: str
    label: Any
    step: int | None = None


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
    return {"rewards": [float(s.reward) for s in scores], "scores": [float(s.success) for s in scores],
            "extra_logs": shaper.metric_columns(scores)}


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


def read_nemo(body: Any) -> Sample:
    """NeMo Gym's verify request: the answer is the final output item when it is an assistant message; the
    query is ``label`` when given, else the row's own fields (everything but NeMo Gym's keys)."""
    body = _object(body)
    if not isinstance(body.get("responses_create_params"), Mapping):
        raise BadRequest("field 'responses_create_params' must be an object (NeMo Gym's verify request)")
    response = body.get("response")
    if not isinstance(response, Mapping) or not isinstance(response.get("output"), list):
        raise BadRequest("field 'response' must be a Responses object with an 'output' list (NeMo Gym's verify "
                         "request)")
    label = body["label"] if "label" in body else {
        k: v for k, v in body.items() if k not in NEMO_FIELDS and not k.startswith("_ng_")}
    return Sample(final_message(response["output"]), label)


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
    aggregate metrics read top-level numeric fields only)."""
    fields = score_fields(score)
    return {**body, **score.metrics(), "reward": fields["reward"], "reward_components": fields["components"],
            "success": fields["success"], "failure": fields["failure"], "reason": fields["reason"],
            "stage": fields["stage"], "step": fields["step"]}


def _object(body: Any) -> Mapping[str, Any]:
    if not isinstance(body, Mapping):
        raise BadRequest(f"the request body must be a JSON object, got {_json_type(body)}")
    return body


def _json_type(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number",
            type(None): "null"}.get(type(value), type(value).__name__)
