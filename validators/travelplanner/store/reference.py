"""A per-query sandbox from a Hugging Face record's ``reference_information`` ("sole-planning" mode).

Each entry's ``Content`` is a pandas ``to_string()`` table or a sentence. Tables are cut into columns
at the right edge of each header name (pandas right-aligns headers and values alike).
Limitation: pandas truncates cells longer than 50 characters with "...", so a listing with a longer
name is only partly known here; the full database does not have this problem.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..query import literal
from .database import SPECS
from .sandbox import Distance, Sandbox

_GROUND = re.compile(r"^(?:self-driving|taxi), from (.+?) to (.+?), duration: (.+?), distance: (.+?), cost: ")
_INDEX = re.compile(r"^(\d+)\s")


def _header_edges(header: str, names: list[str]) -> list[tuple[str, int]]:
    """Each column's name and right edge; known multi-word names first, then any other word."""
    taken: list[tuple[int, int, str]] = []
    for name in sorted(names, key=len, reverse=True):
        m = re.search(rf"(?<!\S){re.escape(name)}(?!\S)", header)
        if m and not any(a < m.end() and m.start() < b for a, b, _ in taken):
            taken.append((m.start(), m.end(), name))
    for m in re.finditer(r"\S+", header):
        if not any(a <= m.start() < b for a, b, _ in taken):
            taken.append((m.start(), m.end(), m.group()))
    return [(name, end) for _, end, name in sorted(taken)]


def parse_table(text: str, names: Sequence[str] = ()) -> list[dict[str, str]]:
    """Rows of a pandas ``to_string()`` table as ``{header: cell}`` dicts (index column dropped).

    ``names`` lists the expected column names, so that headers with spaces ("room type") stay whole.
    """
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) < 2:
        return []
    header, body = lines[0], lines[1:]
    edges = _header_edges(header, list(names))
    index_width = 0
    matches = [_INDEX.match(line) for line in body]
    if all(matches) and header[: max(len(m.group(1)) for m in matches if m)].strip() == "":
        index_width = max(len(m.group(1)) for m in matches if m)
    rows = []
    for line in body:
        start, row = index_width, {}
        for name, end in edges:
            row[name] = line[start:end].strip()
            start = end
        rows.append(row)
    return rows


def _typed(table: str, content: str) -> list:
    row_type, columns = SPECS[table]
    out = []
    for row in parse_table(content, [c for c, _ in columns]):
        if all(column in row and row[column] for column, _ in columns):
            try:
                out.append(row_type(*(conv(row[column]) for column, conv in columns)))
            except ValueError:
                continue  # a cell pandas shortened beyond recognition: the row is unusable
    return out


def sandbox_from_reference(
    record: Mapping[str, Any], city_state: Mapping[str, str] | None = None
) -> Sandbox:
    """Build a sandbox holding only what the query's reference information lists.

    Without ``city_state`` (the database's city->state map) one is inferred: every listed city and the
    origin are known cities, and for 5- and 7-day trips every listed city lies in the destination state.
    """
    entries = literal(record["reference_information"])
    tables: dict[str, list] = {"restaurants": [], "attractions": [], "accommodations": [], "flights": []}
    distances: list[Distance] = []
    cities: set[str] = set()
    for entry in entries:
        description, content = str(entry.get("Description", "")), str(entry.get("Content", ""))
        kind = description.split(" ", 1)[0].lower()
        if kind in ("restaurants", "attractions", "accommodations"):
            cities.add(description.split(" in ", 1)[-1])
            tables[kind] += _typed(kind, content)
        elif kind == "flight" and not content.startswith("There is no flight"):
            tables["flights"] += _typed("flights", content)
        elif kind in ("self-driving", "taxi") and (m := _GROUND.match(content)):
            distances.append(Distance(m.group(1), m.group(2), m.group(3), m.group(4)))
    if city_state is None:
        days = int(record.get("days", 0) or 0)
        state = str(record.get("dest", "")) if days > 3 else ""
        inferred = {city: state for city in cities}
        inferred.setdefault(str(record.get("org", "")), "")
        city_state = inferred
    return Sandbox(
        restaurants=tables["restaurants"],
        attractions=tables["attractions"],
        accommodations=tables["accommodations"],
        flight_rows=tables["flights"],
        distances=distances,
        city_state=dict(city_state),
        source="reference_information",
    )
