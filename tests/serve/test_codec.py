"""The server reads a body as the standard library's ``json`` does, whichever parser ran (``serve.codec``): orjson
where it can, ``json`` for what orjson refuses (a lone surrogate escape, which a model's truncated or fuzzed text
brings; ``NaN``), and the one reading that differs, an integer past 64 bits, as the docstring says."""

from __future__ import annotations

import json
import random

import pytest
from planshape.shaping.serve import codec
from planshape.shaping.serve.limits import BadRequest

pytest.importorskip("orjson")

PIECES = ["plain", "\ud800", "\udfff", "\udbff\udc00", "\U0001f600", "\\", "\\ud800", '"', "\ue000", "\ue001",
          "\ue000D800", "é", "\n", "\x00", "ud800", "{", "\\\\ud800"]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12)))


def test_bodies_with_lone_surrogates_read_as_json_reads_them():
    rng = random.Random(3)
    lone = 0
    for _ in range(3000):
        value = {"query": [_text(rng) for _ in range(rng.randint(1, 3))], "prompts": [_text(rng)],
                 _text(rng): {"nested": [[_text(rng)], {_text(rng): _text(rng)}]}}
        body = json.dumps(value, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
        try:
            expected = json.loads(body.decode("utf-8"))
        except UnicodeDecodeError:  # a raw lone surrogate is not UTF-8: refused, as json refuses it
            with pytest.raises(BadRequest, match="not UTF-8"):
                codec.parse_json(body)
            continue
        lone += any(0xD800 <= ord(c) <= 0xDFFF for c in json.dumps(expected, ensure_ascii=False))
        assert codec.parse_json(body) == expected
    assert lone > 1000  # the case in question, often


def test_what_orjson_refuses_for_other_reasons_is_still_read_or_refused_as_json_does():
    read = codec.parse_json(b'{"a": NaN, "t": "\\ud800", "big": 123456789012345678901234567890}')
    assert read["t"] == "\ud800" and read["big"] == 123456789012345678901234567890 and read["a"] != read["a"]
    assert codec.parse_json(b'{"big": 123456789012345678901234567890}')["big"] == 1.2345678901234568e29  # orjson's
    with pytest.raises(BadRequest, match="not JSON"):
        codec.parse_json(b'{"t": "\\ud800", ')
