"""Strict's tolerant reader of transport strings: what a string states, in whatever form it is written.

Upstream reads plan text by exact spelling (``text.py`` keeps that reading for official mode): ``Flight Number: ``
in that case only (any other crashes), one ``from A to B`` pattern, lower-case labels in one order. Strict judges
what a string *states*: labels in any case and order (the flights table's own column names too), optional commas
and labels, surrounding and repeated spaces, unit words (``mins``/``minutes``/``min``, ``hours``/``hrs``/``h``,
``km``/``kilometers``, miles), ``$`` and thousands separators, ``HH:MM:SS``, trailing punctuation; a field left
out states nothing. The reader is a tokeniser with a field table:

1. spaces are collapsed, thousands separators dropped (``1,433 km`` is one number) and dates written out
   (``March 3, 2022``) made ISO, so that commas separate fields only;
2. the leg (``from A to B``; ``to B``; ``within A``) is cut out first: its cities are free text;
3. the rest splits at separators (``,``, ``;``, brackets, `` - ``) and before every ``label:``;
4. each segment is a ``label: value``, mode words (which may lead a value: ``Self-driving: 6 hours``), a value
   whose shape names its field (``F123``, ``10:50``, ``6 hours 17 mins``, ``634 km``, ``$31``), a qualifier of
   the cost (``per person``, ``for 2 people``) or of a time (``next day``), or filler (``approx.``); anything else
   is kept as ``unread``: it names no value, and strict judges the values, the modes and the legs it read.

Reading never raises, and a short text (every real one) is read once per process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

MAX_TEXT = 600  # no honest transport string is this long (the canonical ones are under 200 characters)
FLIGHT, DRIVE, TAXI = "flight", "self-driving", "taxi"
NOT_STATED = frozenset({"", "-", "--", "n/a", "na", "none", "null", "unknown", "tbd", "tba", "not applicable", "nil",
                        "?", "varies", "various", "not available", "not specified"})

# Mode words, whole words in any case: the three modes the database has ...
_MODE_WORDS = {
    DRIVE: r"self[\s-]*driv(?:ing|e|en)|driv(?:ing|e)|by\s+car",
    TAXI: r"taxi(?:\s*cab)?|cab",
    FLIGHT: r"flight|fly|plane|airplane",
}
# ... and modes it has none of: a string naming one states a journey nothing can check or charge.
_OTHER_MODES = (r"bus(?:es)?|coach|train|rail|amtrak|metro(?:\s*rail|link)?|subway|tram|ferry|boat|walk(?:ing)?|"
                r"bike|bicycle|(?:local\s+|public\s+)?trans(?:it|portation|port)(?:\s+pass)?|shuttle|"
                r"rental\s+(?:car|vehicle)|rent(?:ed)?\s+a\s+car|car\s+rental|uber|lyft|ride[\s-]?shar\w*|carpool\w*|"
                r"minivan|van|marta|dart|cta|muni|rtd")
_MODE_START = re.compile(
    "(?i)^(?:" + "|".join(f"(?P<{name.replace('-', '_')}>{p})" for name, p in _MODE_WORDS.items())
    + rf"|(?P<other>{_OTHER_MODES}))(?![\w-])\s*[:-]?\s*")
MODE_OF = {name.replace("-", "_"): name for name in _MODE_WORDS}

# Labels and the field each names (the flights table's column names included: models copy its rows).
LABELS = {
    "flight_number": r"flight\s*(?:number|no\.?|num(?:ber)?\.?|#|id|code)",
    "departure_time": r"(?:departure|depart(?:s|ing)?|dep\.?)\s*(?:time)?",
    "arrival_time": r"(?:arrival|arriv(?:es|ing|e)|arr\.?)\s*(?:time)?",
    "duration": r"(?:actual\s*elapsed\s*time|elapsed\s*time|duration|(?:travel|driving|drive|flight|journey|trip)\s*"
                r"(?:time|duration))",
    "distance": r"(?:driving\s+|flight\s+|total\s+)?distance",
    "cost": r"(?:total\s+|estimated\s+|approx(?:imate|\.)?\s+|average\s+|fuel\s+)?(?:cost|price|fare)",
    "date": r"(?:flight\s*)?date",
    "origin": r"origin(?:\s*city(?:\s*name)?)?",
    "destination": r"dest(?:ination)?(?:\s*city(?:\s*name)?)?",
}
_LABEL_WORDS = "|".join(f"(?P<{key}>{pattern})" for key, pattern in LABELS.items())
_LABEL = re.compile(rf"(?i)^(?:{_LABEL_WORDS})(?![\w-])\s*(?:[:=]\s*|-\s+|\s+(?=[\d$#F-])|$)")
_LABEL_INSIDE = re.compile(rf"(?i)(?<![\w-])(?:{_LABEL_WORDS})(?![\w-])\s*(?:[:=]|(?=\s*[\d$]))")  # "Taxi Duration: 24"
_CONJUNCTION = re.compile(r"(?i)^(?:(?:or|and|then|via|by|with|/|&|\+)(?![\w-])\s*)+")

_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_WRITTEN_DATE = re.compile(r"(?i)\b(" + "|".join(m[:3] + r"(?:" + m[3:] + r")?\.?" for m in _MONTHS)
                           + r")\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
_SEPARATORS = re.compile(r"\s*(?:[,;()\[\]{}|]|\s-\s)\s*")
_STATE = r"(?:\s*\([A-Za-z][A-Za-z .'-]*\))?"
_CITY = r"[^,;()\[\]{}|]+?" + _STATE
_LEG_END = rf"(?=\s*(?:[,;\[\]{{}}|]|$)|\s*\((?=[^)]*\d)|\s+(?:{_LABEL_WORDS})(?![\w-])|\s+-\s)"
_LEG = re.compile(rf"(?i)(?<![\w-])from\s+(?P<a>{_CITY})\s+to\s+(?P<b>{_CITY}){_LEG_END}")
_ONE_END = re.compile(rf"(?i)(?<![\w-])(?P<word>to|within|in)\s+(?P<b>{_CITY}){_LEG_END}")
_TRAILING = " .!?:;,*"

_FLIGHT_NO = re.compile(r"(?i)^#?\s*(F\d{3,})\.?$")
_DIGITS_NO = re.compile(r"^#?\s*(\d{5,})$")  # "Flight Number: 3839339": the F left out
_TIME = re.compile(r"(?i)^(?P<h>\d{1,2})[:h](?P<m>\d{2})(?::(?P<s>\d{2}))?\s*(?P<ampm>[ap]\.?\s*m\.?)?$")
_UNITS = r"days?|d|hours?|hrs?|hr|h|minutes?|mins?|min|mn|m"
_UNIT = {"d": 1440, "day": 1440, "days": 1440, "h": 60, "hr": 60, "hrs": 60, "hour": 60, "hours": 60,
         "m": 1, "mn": 1, "min": 1, "mins": 1, "minute": 1, "minutes": 1}
_DURATION_PART = re.compile(rf"(?i)(\d+(?:\.\d+)?)\s*({_UNITS})(?![a-z])\.?")
_DURATION = re.compile(rf"(?i)^(?:\d+(?:\.\d+)?\s*(?:{_UNITS})(?![a-z])\.?\s*(?:and\s+|&\s*)?)+$")
_CLOCK_DURATION = re.compile(r"^(\d{1,2}):(\d{2})$")
_DISTANCE = re.compile(r"(?i)^(\d+(?:\.\d+)?)\s*(km|kms|kilometers?|kilometres?|mi|miles?)?\.?$")
_MONEY = re.compile(r"(?i)^(?:usd\s*|us\s*\$\s*|\$\s*)?(\d+(?:\.\d+)?)\s*(?:\$|usd|dollars?|bucks)?$")
_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_FILLER = re.compile(r"(?i)^(?:approx(?:imately|\.)?|about|around|roughly|~|est(?:imated|\.)?|and|one[\s-]way|"
                     r"direct|non-?stop|economy|in total|\+|=|x)$")
_NEXT_DAY = re.compile(r"(?i)^(?:\+\s*1(?:\s*days?)?|next\s+day|the\s+next\s+day|overnight|arrives\s+next\s+day)$")
_QUALIFIER = re.compile(r"(?i)\s*(?:\b(?:for|per|each|a|in|total)\b|/|x\s*\d).*$")
_PERSON = re.compile(r"(?i)^\s*(?:per\s+(?:person|passenger|ticket|head|pax|ride|adult|traveller|traveler)s?|each|"
                     r"a\s+person|/\s*(?:person|pax|ticket))")
_GROUP = re.compile(r"(?i)^\s*(?:total|in\s+total|for\s+(?:all|everyone|the\s+(?:group|party|family)|both|two|three|"
                    r"four|five|six|seven|eight|\d+)\b|x\s*\d|per\s+(?:car|vehicle|taxi|cab))")
_APPROX = re.compile(r"(?i)^(?:approx(?:imately|\.)?|about|around|roughly|~|est(?:imated|\.)?)\s*")
FREE = frozenset({"free", "0", "none", "no cost", "included"})


@dataclass(frozen=True)
class Stated:
    """One value a string states: as written (for reasons), as a number (minutes, km, money) or text, and
    for a distance the unit written (``km``, ``mi``, or ``""`` for a bare number)."""

    text: str
    value: float | str
    unit: str = ""


@dataclass(frozen=True)
class TransportText:
    """What a transport string states.

    ``modes``: the database's modes it names (text order, once each); ``other_modes``: modes the database does
    not have (bus, train, ...); ``legs``: each leg it names, ``(A, B)``, with ``A`` None for ``to B``;
    ``values``: the first value of each field; ``per``: how a stated cost is meant (``"person"``, ``"group"`` or
    ``""``); ``unread``: text that names no value; ``wrong``: labels whose value is not of their kind
    (``duration: 634 km``); ``repeated``: fields stated twice with different values."""

    modes: tuple[str, ...] = ()
    other_modes: tuple[str, ...] = ()
    legs: tuple[tuple[str | None, str], ...] = ()
    values: dict[str, Stated] = field(default_factory=dict)
    per: str = ""
    unread: tuple[str, ...] = ()
    wrong: tuple[tuple[str, str], ...] = ()
    repeated: tuple[str, ...] = ()

    @property
    def mode(self) -> str | None:
        """The one mode the string names (None when it names none, or several)."""
        return self.modes[0] if len(self.modes) == 1 and not self.other_modes else None

    @property
    def leg(self) -> tuple[str | None, str | None]:
        """The one leg the string names, ``(None, None)`` when it names none or several."""
        return self.legs[0] if len(self.legs) == 1 else (None, None)

    def value(self, key: str) -> float | str | None:
        stated = self.values.get(key)
        return None if stated is None else stated.value


def collapse(text: str) -> str:
    """Text with its surrounding spaces dropped and every run of whitespace made one space."""
    return " ".join(text.split())


def read_transport(text: object) -> TransportText | None:
    """What a transport string states; None for a value that is not text, or is too long to be a transport."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        return None
    return _read(text)


@lru_cache(maxsize=16384)
def _read(text: str) -> TransportText:
    flat = _WRITTEN_DATE.sub(_iso, _THOUSANDS.sub("", collapse(text)))
    legs: list[tuple[str | None, str]] = []
    rest: list[str] = []
    at = 0
    for m in _LEG.finditer(flat):
        legs.append((_city(m["a"]), _city(m["b"])))
        rest.append(flat[at : m.start()])
        at = m.end()
    rest.append(flat[at:])
    one = None if legs else _ONE_END.search(flat)
    if one is not None and not _LABEL.match(one["b"]):
        city = _city(one["b"])  # "to B": the leg's origin is the day's; "within A": a ride inside A
        legs.append((None, city) if one["word"].lower() == "to" else (city, city))
        rest = [flat[: one.start()], flat[one.end() :]]
    reading = _Reading()
    for part in rest:
        for segment in _SEPARATORS.split(part):
            for piece in _split_labels(segment):
                reading.segment(piece)
    if "origin" in reading.values or "destination" in reading.values:  # the table's columns name a leg
        legs.append((_text(reading.values.pop("origin", None)), _text(reading.values.pop("destination", None)) or ""))
    modes = tuple(dict.fromkeys(reading.modes))
    if "flight_number" in reading.values and FLIGHT not in modes:
        modes += (FLIGHT,)
    return TransportText(modes, tuple(dict.fromkeys(reading.other)), tuple(dict.fromkeys(legs)), reading.values,
                         reading.per, tuple(reading.unread), tuple(reading.wrong), tuple(reading.repeated))


def _iso(m: re.Match[str]) -> str:
    month = next(i for i, name in enumerate(_MONTHS, 1) if name.startswith(m[1].lower().rstrip(".")[:3]))
    return f"{m[3]}-{month:02d}-{int(m[2]):02d}"


def _city(text: str) -> str:
    return text.strip(_TRAILING)


def _text(stated: Stated | None) -> str | None:
    return None if stated is None else str(stated.value)


def _split_labels(segment: str) -> list[str]:
    """A segment cut before every ``label:`` after its start (commas are optional)."""
    starts = [m.start() for m in _LABEL_INSIDE.finditer(segment) if m.start() > 0]
    if not starts:
        return [segment]
    bounds = [0, *starts, len(segment)]
    return [segment[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


class _Reading:
    """The fields read so far from one string's segments."""

    def __init__(self) -> None:
        self.modes: list[str] = []
        self.other: list[str] = []
        self.values: dict[str, Stated] = {}
        self.per = ""
        self.unread: list[str] = []
        self.wrong: list[tuple[str, str]] = []
        self.repeated: list[str] = []
        self.times = 0  # unlabelled times so far: the first is the departure, the second the arrival

    def segment(self, text: str) -> None:
        text = _CONJUNCTION.sub("", text.strip(_TRAILING)).strip(_TRAILING)
        if not text:
            return
        if (label := _LABEL.match(text)) is not None:
            self.labelled(label.lastgroup or "", text[label.end() :])
        elif (mode := _MODE_START.match(text)) is not None:  # "Self-driving: 6 hours", "Flight F123", "Bus"
            word = mode.lastgroup or ""
            if word == "other":
                self.other.append(collapse(mode.group(0)).strip(" :-").lower())
            else:
                self.modes.append(MODE_OF[word])
            self.segment(text[mode.end() :])
        elif _FILLER.match(text) or _NEXT_DAY.match(text):
            return
        elif _PERSON.match(text) or _GROUP.match(text):
            self.qualify(text)
        else:
            key, value, unit = _by_shape(text)
            if key is None:
                self.unread.append(text)
            elif key == "time":
                self.add("departure_time" if self.times == 0 else "arrival_time", text, value)
                self.times += 1
            else:
                self.add(key, text, value, unit)

    def labelled(self, key: str, text: str) -> None:
        value = text.strip(_TRAILING)
        if key == "cost" and (q := _QUALIFIER.search(value)) is not None and q.start() > 0:
            self.qualify(value[q.start() :])
            value = value[: q.start()].strip(_TRAILING)
        if value.lower() in NOT_STATED or (value.startswith("[") and value.endswith("]")):
            return  # nothing stated (a template's "[Departure Time]" too)
        parsed = _parse(key, value)
        if parsed is None:
            self.wrong.append((key, value))
            return
        self.add(key, value, *parsed)

    def qualify(self, text: str) -> None:
        if _PERSON.match(text):
            self.per = "person"
        elif _GROUP.match(text):
            self.per = self.per or "group"

    def add(self, key: str, text: str, value: float | str, unit: str = "") -> None:
        if key in self.values:
            if self.values[key].value != value:
                self.repeated.append(key)
            return
        self.values[key] = Stated(text, value, unit)


def _parse(key: str, text: str) -> tuple[float | str, str] | None:
    """A labelled value read as its field's kind (with a distance's unit), or None when it is not of that kind."""
    text = _APPROX.sub("", text)
    value: float | str | None
    if key == "flight_number":
        m = _FLIGHT_NO.match(text)
        digits = _DIGITS_NO.match(text)
        value = m.group(1).upper() if m else f"F{digits.group(1)}" if digits else None
    elif key in ("departure_time", "arrival_time"):
        value = clock(text)
    elif key == "duration":
        value = minutes(text)
    elif key == "distance":
        return distance(text)
    elif key == "cost":
        value = 0.0 if text.lower() in FREE else money(text)
    elif key == "date":
        m = _DATE.match(text)
        value = f"{m[1]}-{int(m[2]):02d}-{int(m[3]):02d}" if m else None
    else:  # origin, destination: a city
        value = text or None
    return None if value is None else (value, "")


def _by_shape(text: str) -> tuple[str | None, float | str, str]:
    """An unlabelled value whose shape names its field (a bare number names none)."""
    text = _APPROX.sub("", text)
    if (m := _FLIGHT_NO.match(text)) is not None:
        return "flight_number", m.group(1).upper(), ""
    if (at := clock(text)) is not None:
        return "time", at, ""
    if _DURATION.match(text):
        return "duration", minutes(text) or 0.0, ""
    if (km := distance(text)) is not None and km[1]:
        return "distance", *km
    if "$" in text or re.search(r"(?i)usd|dollar", text):
        if (amount := money(text)) is not None:
            return "cost", amount, ""
    if _DATE.match(text):
        return "date", str(_parse("date", text)[0]), ""  # type: ignore[index]
    return None, "", ""


def clock(text: str) -> float | None:
    """``10:50``, ``15:40:00``, ``9:05 pm`` -> minutes after midnight (seconds as a fraction); None otherwise.
    ASCII digits only: ``15:4⁰`` is not a time."""
    m = _TIME.match(text.strip())
    if m is None or not text.isascii():
        return None
    h, mins, secs = int(m["h"]), int(m["m"]), int(m["s"] or 0)
    if m["ampm"] and h <= 12:  # "14:46 PM" is 14:46
        h = h % 12 + (12 if m["ampm"][0].lower() == "p" else 0)
    if h > 24 or mins > 59 or secs > 59 or (h == 24 and (mins or secs)):
        return None
    return h * 60 + mins + secs / 60


def minutes(text: str) -> float | None:
    """``6 hours 17 mins``, ``14 hrs 2 minutes``, ``1 day 2 h``, ``45 min``, ``6:17`` -> minutes; None otherwise."""
    text = _APPROX.sub("", text.strip())
    if not text.isascii():
        return None
    if (m := _CLOCK_DURATION.match(text)) is not None:
        return float(int(m[1]) * 60 + int(m[2]))
    if not _DURATION.match(text):
        return None
    return sum(float(n) * _UNIT[unit.lower()] for n, unit in _DURATION_PART.findall(text))


def distance(text: str) -> tuple[float, str] | None:
    """``634 km``, ``1433 kilometers``, ``12.5 km``, ``220 miles``, ``351.0`` -> (number, unit: ``km``, ``mi``
    or ``""`` for a bare number); None otherwise."""
    m = _DISTANCE.match(_APPROX.sub("", _THOUSANDS.sub("", text.strip())))
    if m is None or not text.isascii():
        return None
    unit = (m[2] or "").lower()
    return float(m[1]), "mi" if unit.startswith("mi") else "km" if unit else ""


def kilometres(text: str) -> float | None:
    """A distance with its unit in kilometres (miles converted); None for anything else, a bare number too."""
    read = distance(text)
    if read is None or not read[1]:
        return None
    return read[0] * 1.609344 if read[1] == "mi" else read[0]


def money(text: str) -> float | None:
    """``71``, ``$71``, ``71 USD``, ``1,433``, ``$ 71.00`` -> the amount; None otherwise."""
    m = _MONEY.match(_APPROX.sub("", _THOUSANDS.sub("", text.strip())))
    return float(m[1]) if m and text.isascii() else None


def canonical(text: object) -> TransportText | None:
    """The canonical string's fields (``text.parse_transport``: notes §2, exact labels and order) as a
    ``TransportText``, or None for any other text: strict's reading with Q22 open (exact spelling). A value
    that is not of its kind (``15:4⁰``) is kept as ``wrong``."""
    from .text import parse_transport

    fields = parse_transport(text) if isinstance(text, str) else None
    if fields is None:
        return None
    values: dict[str, Stated] = {}
    wrong: list[tuple[str, str]] = []
    for key, written in fields.items():
        if key in ("mode", "from", "to"):
            continue
        parsed = _canonical_value(key, written)
        if parsed is None:
            wrong.append((key, written))
        else:
            values[key] = Stated(written, *parsed)
    return TransportText((fields["mode"],), (), ((fields["from"], fields["to"]),), values, "", (), tuple(wrong))


def _canonical_value(key: str, written: str) -> tuple[float | str, str] | None:
    from .text import clock_minutes, distance_km, duration_minutes

    if key == "flight_number":
        return written, ""
    if key in ("departure_time", "arrival_time"):
        at = clock_minutes(written)
        return None if at is None else (float(at), "")
    if key == "duration":
        took = duration_minutes(written)
        return None if took is None else (float(took), "")
    if key == "distance":
        km = distance_km(written)
        return None if km is None else (km, "km")
    try:
        return float(written), ""
    except ValueError:  # "1.2.3" matches the canonical cost's digits-and-dots
        return None
