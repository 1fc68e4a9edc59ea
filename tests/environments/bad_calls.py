"""A model's bad tool calls, one set of checks for every standard: the facade's ``Episode`` and ``planshape
rollout`` (tests/environments/test_bad_calls.py), verifiers, OpenEnv and TRL's environment class (each in its
suite's venv: tests/adapters/<name>/test_bad_calls.py) and NeMo Gym through ``planshape serve``
(tests/nemo_gym). Each suite drives its standard through the standard's own code and hands these checks what the
model read; imports only planshape, as ``cases`` does.

What every standard must do with them:

* an unknown tool, argument names the tool does not take, arguments that are not JSON, arguments that are not an
  object: each answered with the toolbox's text (``ToolBox.call``), word for word, except where the standard
  writes that tool result itself and gives the environment no say (``owned``, per standard, in its test, with
  the standard's own words) or cannot carry the call at all (``unsent``: OpenEnv's actions take an object);
* every call is an assistant turn toward the cap, the bad ones too;
* a stuck model (the same bad call every turn) is cut at the cap: the episode ends unanswered (``no_answer``),
  with the turn cap as its reason where the standard tells the environment that the cap ended it.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from planshape.validators.travelplanner.agent.loop import turn_cap_reason

BAD: list[tuple[str, str, str]] = [  # (kind, tool, arguments as the model wrote them)
    ("unknown tool", "book_hotel", '{"city": "Rockford"}'),
    ("bad argument names", "search_accommodations", '{"town": "Rockford"}'),
    ("non-JSON arguments", "search_flights", '{"origin": "St. Petersburg", '),
    ("arguments not an object", "calculator", '["1 + 1"]'),
]
STUCK = BAD[0]  # a stuck model repeats this call every turn
CAP = 4  # the turn cap of the stuck-model runs, where a test may set it
ANSWER = "I could not plan this trip."  # the reply after the bad calls: no answer block


def expected(box: Any, kinds: Collection[str] | None = None) -> list[str]:
    """What the toolbox answers each bad call (of ``kinds``, default all), in order."""
    return [box.call(name, arguments) for kind, name, arguments in BAD if kinds is None or kind in kinds]


def sent(unsent: Collection[str] = ()) -> list[tuple[str, str, str]]:
    """The bad calls a standard can carry."""
    return [call for call in BAD if call[0] not in unsent]


def arguments_object(arguments: str) -> dict[str, Any]:
    """The arguments as an object, for a standard that takes one (a call that is not one is never sent there)."""
    value = json.loads(arguments)
    assert isinstance(value, dict)
    return value


def check_answers(read: Sequence[str], box: Any, owned: Mapping[str, str] = {},
                  unsent: Collection[str] = ()) -> None:
    """``read``: the tool results the model read, one per bad call the standard carries, in ``BAD`` order."""
    calls = sent(unsent)
    assert len(read) == len(calls), read
    for (kind, name, arguments), text in zip(calls, read, strict=True):
        want = owned[kind] if kind in owned else box.call(name, arguments)
        assert text == want, (kind, text, want)
        assert kind in owned or text.startswith("Error: "), kind


def check_counted(turns: int, unsent: Collection[str] = ()) -> None:
    """Every bad call was a turn, and so was the answer after them."""
    assert turns == len(sent(unsent)) + 1, turns


def check_stuck(failure: str | None, reason: str, turns: int | None, cap: int = CAP,
                reason_says_cap: bool = True) -> None:
    """A stuck model's episode ended at the cap, unanswered (``turns`` None: the standard does not count them)."""
    assert failure == "no_answer", (failure, reason)
    if turns is not None:
        assert turns == cap, turns
    if reason_says_cap:
        assert reason == turn_cap_reason(cap), reason
    else:
        assert reason, "an unanswered episode says why"
