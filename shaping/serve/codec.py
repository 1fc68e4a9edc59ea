"""JSON in and out of the server: orjson where it is installed (``planshape[serve]`` brings it: it reads a
17 KiB OpenRLHF body about 3.5x and writes a reply about 15x faster than the standard library), with the standard
library's results.

orjson refuses a few things the standard library reads (a lone surrogate escape, ``NaN``, nesting past 1,024): such
a body is read again by ``json``, so what a request means, or the 400 naming why it cannot be read, does not depend
on which parser ran. One reading differs: orjson reads an integer past 64 bits as the nearest float, where ``json``
keeps it exact; no field the server reads can tell (a step that large is past every stage either way, a label's
counts are small), and a NeMo Gym reply echoes it as that float. A reply orjson cannot write (an echoed integer past
64 bits, from a body ``json`` read) is written by ``json``.
"""

from __future__ import annotations

import json
from typing import Any

from .limits import BadRequest

try:
    import orjson
except ImportError:  # planshape without its serve extra: the standard library, same results, more CPU
    orjson = None  # type: ignore[assignment]


def parse_json(body: bytes) -> Any:
    """The body as JSON, or ``BadRequest`` saying why not."""
    if not body:
        raise BadRequest("the request has no body: send a JSON object")
    if orjson is not None:
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass  # read again below: the standard library's reading, or its reason
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest(f"the body is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise BadRequest("the JSON nests too deeply") from None
    except ValueError as exc:
        raise BadRequest(f"the body is not JSON ({exc})") from None


def dumps(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON (a NaN echoed from a request is written as null by orjson; the standard
    library, which writes what orjson cannot, refuses it)."""
    if orjson is not None:
        try:
            return orjson.dumps(value)
        except TypeError:  # an integer past 64 bits echoed from a request
            pass
    return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()
