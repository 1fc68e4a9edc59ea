"""Anchor states for GiGPO's step groups: which turns were taken in the same state.

Two keys (``ShapingConfig.anchor``), and one option:

* ``state``: a per-turn state id the trainer or environment provides (any hashable: an observation's text, a
  simulator's state number); equal ids are the same state.
* ``tool_calls`` (TravelPlanner): the tool calls and their arguments made before the turn. TravelPlanner's tools
  are deterministic functions of their arguments over a fixed sandbox, so two trajectories of one query that
  made the same calls in the same order hold the same information: the same state, whatever else they wrote.
  The first turn's state is the prompt itself, shared by the whole group. A ``<tool_call>`` block that is no
  call (bad JSON, no name) runs no tool and leaves the state as it was.
* ``similarity`` (verl-agent's ``enable_similarity``, off by default as there): text states of one prompt group whose
  ``difflib.SequenceMatcher`` ratio reaches the threshold share a step group. Clusters form greedily, each state
  joining the first cluster whose first state it is similar to, over the group's distinct states in sorted order
  (verl-agent visits them in batch order; sorted, the groups do not depend on how a trainer ordered its rows).

The ``tool_calls`` ids are digests (BLAKE2b) chained over the calls, so they are equal across processes (Python's
``hash`` is salted per process) and small, however long the trajectory.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Sequence
from difflib import SequenceMatcher
from typing import Any

import numpy as np
from planshape.validators.travelplanner.agent.tool_calls import parse_tool_calls

from .inputs import group_codes

ANCHOR_KEYS = ("state", "tool_calls")
MAX_CALLS_PER_TURN = 64  # more blocks than this in one turn are not read (model text is untrusted)


def anchor_codes(anchors: Sequence[Sequence[Hashable]], turns: np.ndarray) -> np.ndarray:
    """Dense per-turn state codes, trajectory-major, from one sequence of ids per trajectory (or row); each
    must hold exactly one id per turn. Equal ids (``==`` and same hash) share a code."""
    rows = list(anchors)
    if len(rows) != len(turns):
        raise ValueError(f"anchors must hold one list of state ids per trajectory ({len(turns)}), got {len(rows)}")
    for i, (row, t) in enumerate(zip(rows, turns.tolist(), strict=True)):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise ValueError(f"anchors[{i}] must be a list with one state id per turn, got {type(row).__name__}")
        if len(row) != t:
            raise ValueError(f"anchors[{i}] holds {len(row)} state ids for {t} turns; give one id per assistant turn")
    flat: list[Any] = [x.item() if isinstance(x, np.generic) else x for row in rows for x in row]
    return group_codes(flat) if flat else np.zeros(0, dtype=np.int64)


def similar_state_codes(states: Sequence[Any], group: np.ndarray, threshold: float) -> np.ndarray:
    """Per-turn step-group codes where, within each prompt group (``group``, one code per turn), text states whose
    ``SequenceMatcher`` ratio to a cluster's first state reaches ``threshold`` join that cluster (module docstring);
    codes are dense and distinct across prompt groups."""
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"anchor similarity must be in (0, 1), got {threshold!r}")
    flat = [x.item() if isinstance(x, np.generic) else x for x in states]
    for k, x in enumerate(flat):
        if not isinstance(x, str):
            raise ValueError(f"anchor similarity compares text states; turn {k}'s state is {type(x).__name__}")
    cluster: dict[tuple[int, str], int] = {}
    for g in np.unique(group).tolist():
        firsts: list[str] = []  # each cluster's first state, in creation order
        for state in sorted({flat[k] for k in np.flatnonzero(group == g).tolist()}):
            found = next((c for c, first in enumerate(firsts)
                          if SequenceMatcher(None, state, first).ratio() >= threshold), None)
            if found is None:
                found = len(firsts)
                firsts.append(state)
            cluster[(g, state)] = found
    return group_codes([(int(g), cluster[(int(g), x)]) for g, x in zip(group.tolist(), flat, strict=True)])


def tool_call_anchors(turn_texts: Sequence[Any]) -> list[str]:
    """The ``tool_calls`` anchor of each turn of one trajectory, from each assistant turn's text (its
    ``<tool_call>`` blocks, as the agent loops read them): a digest of every call made before the turn. Never
    raises on model text; a turn that is not text makes no calls."""
    state = hashlib.blake2b(b"planshape.tool_calls", digest_size=16)
    out = []
    for text in turn_texts:
        out.append(state.hexdigest())
        for call in parse_tool_calls(text, MAX_CALLS_PER_TURN):
            if call.error is None:  # a block that is no call runs no tool: it changes nothing that is known
                state.update(_canonical(call.name, call.arguments))
    return out


def _canonical(name: Any, arguments: Any) -> bytes:
    """One call as bytes that are equal exactly when name and arguments are (key order ignored); framed by
    its length so that no two call sequences concatenate to the same bytes."""
    try:
        text = json.dumps([name, arguments], sort_keys=True, ensure_ascii=False, default=repr)
    except (ValueError, TypeError, RecursionError):  # what json.loads accepted, it writes back; this is a guard
        text = repr([name, arguments])
    data = text.encode("utf-8", "surrogatepass")
    return len(data).to_bytes(8, "little") + data
