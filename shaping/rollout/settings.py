"""What one ``planshape rollout`` run is: the endpoint, the model, the sampling and the loop's limits.

Checked once at start-up (a wrong value fails before any request, naming the flag). ``fingerprint`` is the part
that decides the results: a rerun into the same run directory must match it, so resumed and fresh results
never mix; the endpoint address, concurrency, timeouts and retries may change between reruns.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

from planshape.validators.travelplanner.agent.loop import MAX_CALLS_PER_TURN, MAX_TURNS

ToolFormat = Literal["native", "text"]
TOOL_FORMATS = ("native", "text")


@dataclass(frozen=True)
class RolloutSettings:
    base_url: str
    model: str
    concurrency: int = 8
    max_turns: int = MAX_TURNS  # Planner-R1's max_assistant_turns
    temperature: float = 0.0  # Planner-R1 evaluates greedily
    samples: int = 1
    max_tokens: int | None = None
    tool_format: ToolFormat = "native"
    max_calls_per_turn: int = MAX_CALLS_PER_TURN
    request_timeout_s: float = 600.0
    retries: int = 5
    api_key: str = "EMPTY"
    seed: int | None = None
    extra_body: dict[str, Any] | None = None  # more request fields, e.g. {"top_p": 0.95} or chat_template_kwargs

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"--base-url must be an http(s) URL such as http://127.0.0.1:8000/v1, "
                             f"got {self.base_url!r}")
        for route in ("/chat/completions", "/completions", "/models"):
            if self.base_url.rstrip("/").endswith(route):
                raise ValueError(f"--base-url is the API root (the client adds /chat/completions and /models): drop "
                                 f"{route!r} (--base-url {self.base_url.rstrip('/')[: -len(route)]})")
        if not self.model.strip():
            raise ValueError("--model must name the served model (as the endpoint's /v1/models lists it)")
        for name in ("concurrency", "max_turns", "samples", "max_calls_per_turn"):
            _whole(name, getattr(self, name), 1)
        _whole("retries", self.retries, 0)
        if self.max_tokens is not None:
            _whole("max_tokens", self.max_tokens, 1)
        if not (isinstance(self.temperature, (int, float)) and math.isfinite(self.temperature)
                and 0 <= self.temperature <= 2):
            raise ValueError(f"--temperature must be a number in [0, 2], got {self.temperature!r}")
        if not (math.isfinite(self.request_timeout_s) and self.request_timeout_s > 0):
            raise ValueError(f"--request-timeout must be a positive number of seconds, got {self.request_timeout_s!r}")
        if self.extra_body is not None:
            if not isinstance(self.extra_body, dict):
                raise ValueError(f"--extra-body must be a JSON object, got {type(self.extra_body).__name__}")
            taken = sorted(set(self.extra_body) & {"model", "messages", "tools", "stream", "n"})
            if taken:
                raise ValueError(f"--extra-body may not set {taken}: the rollout sets them (or needs them unset)")
        if self.tool_format not in TOOL_FORMATS:
            raise ValueError(f"--tool-format must be one of {TOOL_FORMATS}, got {self.tool_format!r}")

    def fingerprint(self) -> dict[str, Any]:
        """The settings that decide a result (see the module docstring)."""
        keep = ("model", "max_turns", "temperature", "samples", "max_tokens", "tool_format", "max_calls_per_turn",
                "seed", "extra_body")
        return {k: v for k, v in asdict(self).items() if k in keep}


def _whole(name: str, value: Any, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"--{name.replace('_', '-')} must be a whole number >= {least}, got {value!r}")
