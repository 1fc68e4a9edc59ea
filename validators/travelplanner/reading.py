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
from functools import cached_property, lru_cache

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
_ANY_MODE = "|".join([*_MODE_WORDS.values(), _OTHER_MODES])  # no city of the database holds one as a word
_LEG_END = (rf"(?=\s*(?:[,;\[\]{{}}|]|$)|\s*\((?=[^)]*\d)|\s+(?:{_LABEL_WORDS})(?![\w-])|\s+-\s"
            rf"|\s+(?:{_ANY_MODE})(?![\w-]))")  # "from A to B Self-driving": the mode after the leg
_LEG = re.compile(rf"(?i)(?<![\w-])from\s+(?P<a>{_CITY})\s+to\s+(?P<b>{_CITY}){_LEG_END}")
_ONE_END = re.compile(rf"(?i)(?<![\w-])(?P<word>to|within|in)\s+(?P<b>{_CITY}){_LEG_END}")
_TRAILING = " .!?:;,*"

_FLIGHT_NO = re.compile(r"(?i)^#?\s*(F\d{3,})\.?$")
_DIGITS_NO = re.compile(r"^#?\s*(\d{5,})$")  # "Flight Number: 3839339": the F left out
_LABELLED_NO = re.compile(r"(?i)^#?\s*(F\d+)\.?$")
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
            if "$" in text and (q := _QUALIFIER.search(text)) is not None and q.start() > 0:
                self.qualify(text[q.start() :])  # "$31 per person"
                text = text[: q.start()].strip(_TRAILING)
            key, value, unit = _by_shape(text)
            if key is None:
                self.unread.append(text)
            elif key == "time":
                self.add("departure_time" if self.times == 0 else "arrival_time", text, value)
                self.times += 1
            else:
                self.add(key, text, value, unit)

    def labelled(self, key: str, text: str) -> None:
        if key == "flight_number":
            self.modes.append(FLIGHT)  # "Flight Number: ..." names the mode, whatever number follows
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
        m = _LABELLED_NO.match(text)
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


# ------------------------------------------------------------------------------------------- places

# The database's cuisines and room types: an item may state them after its city ("Side Wok, Bozeman (Indian)").
CUISINES = ("American", "BBQ", "Bakery", "Cafe", "Chinese", "Desserts", "Fast Food", "French", "Indian", "Italian",
            "Mediterranean", "Mexican", "Pizza", "Seafood", "Tea")
ROOM_TYPES = {"entire home/apt": "Entire home/apt", "entire home": "Entire home/apt", "entire apartment":
              "Entire home/apt", "entire room": "Entire home/apt", "private room": "Private room",
              "shared room": "Shared room"}
_PLACE_SEPARATORS = re.compile(r"\s*(?:[,;:()\[\]{}|]|\s[-–—]\s)\s*")
_CUISINE = re.compile(r"(?i)^(?:(?:" + "|".join(re.escape(c) for c in CUISINES)
                      + r")(?:\s*(?:/|&|and|,)\s*|\s+|$))+(?:cuisine|food|restaurant)?$")
_ONE_CUISINE = re.compile(r"(?i)" + "|".join(re.escape(c) for c in sorted(CUISINES, key=len, reverse=True)))
_PLACE_LABEL = re.compile(r"(?i)^(?P<label>(?:total\s+|average\s+|avg\.?\s+|estimated\s+|approx(?:imate|\.)?\s+)?"
                          r"(?:cost|price|fare)(?:\s+per\s+(?:person|night))?|room\s*type|house[\s_]*rules?|"
                          r"cuisines?|type|(?P<minimum_nights>min(?:imum)?[\s_]*nights?)|"
                          r"(?P<maximum_occupancy>max(?:imum)?[\s_]*occupancy)|"
                          r"(?P<rating>(?:aggregate\s+|review\s+)?rat(?:e|ing)(?:\s+number)?))\s*[:=]?\s*")
_NIGHTS = re.compile(r"(?i)^(?:for\s+)?(\d+)\s+nights?$")
_PEOPLE = re.compile(r"(?i)^(?:for\s+)?(\d+|one|two|three|four|five|six|seven|eight)\s+(?:people|persons|guests|"
                     r"travell?ers|adults)$")
_MONEY_FOR = re.compile(r"(?i)^(.+?)\s+(for\s+.+|per\s+.+|each|total|in\s+total)$")
_PER_NIGHT = re.compile(r"(?i)^(?:per|a|/)\s*night$")
_SLASH_UNIT = re.compile(r"(?i)^(.+?)\s*/\s*(night|person|pax|head|day)$")
_ALLOWS = re.compile(r"(?i)^(?:(?:this\s+\w+\s+)?allows\s+(?P<a>\w+)|(?P<b>\w+)[\s-]+(?:friendly|allowed|welcome|ok))"
                     r"(?:\s+.*)?$")
ALLOWED = {"pet": "No pets", "dog": "No pets", "cat": "No pets", "smok": "No smoking", "part": "No parties",
           "child": "No children under 10", "kid": "No children under 10", "famil": "No children under 10",
           "visitor": "No visitors", "guest": "No visitors"}
_HOUSE_RULE = re.compile(r"(?i)^(?:no\s+(?:smoking|parties|pets|visitors|children\s+under\s+10)"
                         r"(?:\s*(?:&|and|,)\s*no\s+(?:smoking|parties|pets|visitors|children\s+under\s+10))*)$")


@dataclass(frozen=True)
class PlaceText:
    """What a ``Name, City`` item states: the name and the city (spaces collapsed; the city None when the text
    names no known city: the day's cities may hold it), the ``(State)`` written after the city, and the values it
    states after the city (``cost`` with ``per``: ``"person"``, ``"group"`` or ``""``; ``nights``; ``cuisines``;
    ``room_type``; ``house_rules``). ``unread``: text after the name that states nothing the reader knows."""

    name: str
    city: str | None
    state: str | None = None
    cost: float | None = None
    per: str = ""
    nights: int | None = None
    cuisines: tuple[str, ...] = ()
    room_type: str | None = None
    house_rules: tuple[str, ...] = ()
    allows: tuple[str, ...] = ()
    numbers: tuple[tuple[str, float], ...] = ()
    unread: tuple[str, ...] = ()

    @cached_property
    def plain(self) -> bool:
        """A name and a city (or none), and nothing after them (asked of every item by several checks: once)."""
        return (self.state is None and self.cost is None and not self.unread and not self.cuisines
                and self.room_type is None and not self.house_rules and not self.allows and not self.numbers)


def read_place(text: object, cities: frozenset[str], states: frozenset[str]) -> PlaceText | None:
    """What a place item states, given the database's ``cities`` and ``states``; None for a value that is not
    one line of text (strict's one-line rule names it: upstream reads only a field's last line)."""
    if not isinstance(text, str) or len(text) > MAX_TEXT or (not text.isprintable() and (
            len(text.splitlines()) > 1 or text.endswith(("\n", "\r")))):  # a line break is unprintable
        return None
    return _read_place(text, cities, states)


@lru_cache(maxsize=65536)
def _read_place(text: str, cities: frozenset[str], states: frozenset[str]) -> PlaceText:
    flat = _THOUSANDS.sub("", collapse(text)).rstrip(_TRAILING + ")]")
    cuts = [(m.start(), m.end()) for m in _PLACE_SEPARATORS.finditer(flat)]
    bounds = [(0, 0), *cuts, (len(flat), len(flat))]
    segments = [(bounds[k][1], bounds[k + 1][0]) for k in range(len(bounds) - 1)]
    found = None
    for k in range(len(segments) - 1, 0, -1):  # the last segment that is a city (a name may hold one too)
        start, end = segments[k]
        if flat[start:end].strip(_TRAILING) in cities:
            found = k
            break
    if found is not None and found > 1 and flat[segments[found - 1][1] : segments[found][0]].strip() == "(" and \
            flat[slice(*segments[found])] in states and flat[slice(*segments[found - 1])].strip(_TRAILING) in cities:
        found -= 1  # "Buffalo(New York)": a state that is also a city's name, after its city
    if found is None:
        return _without_city(flat, segments)
    start, end = segments[found]
    name = flat[: start].rstrip(" ,;:-–—(").strip()
    city = flat[start:end].strip(_TRAILING)
    rest = _fields(flat, segments[found + 1 :])
    state = None
    if rest and rest[0] in states and flat[end : segments[found + 1][0]].strip() == "(":
        state, rest = rest[0], rest[1:]
    return _annotated(name, city, state, rest)


def _without_city(flat: str, segments: list[tuple[int, int]]) -> PlaceText:
    """An item that names no known city: its name runs to the first segment that is a value or a remark in
    brackets ("The Maryland Zoo in Baltimore (morning visit)")."""
    for k, (start, end) in enumerate(segments):
        if k and (_is_value(flat[start:end].strip(_TRAILING)) or flat[segments[k - 1][1] : start].strip() == "("):
            name = flat[: segments[k - 1][1]].rstrip(_TRAILING).strip()
            rest = _fields(flat, segments[k:])
            return _annotated(name, None, None, rest)
    return PlaceText(flat.rstrip(_TRAILING).strip(), None)


def _fields(flat: str, segments: list[tuple[int, int]]) -> list[str]:
    """The segments after a place's name or city, a label joined to the value after its colon
    (``Minimum nights: 2``), each stripped of trailing punctuation."""
    out: list[str] = []
    for k, (start, end) in enumerate(segments):
        text = flat[start:end].strip(_TRAILING)
        joined = k and out and flat[segments[k - 1][1] : start].strip() == ":" and _PLACE_LABEL.fullmatch(out[-1] + ":")
        if joined:
            out[-1] = f"{out[-1]}: {text}"
        else:
            out.append(text)
    return out


def _is_value(segment: str) -> bool:
    return bool(_PLACE_LABEL.match(segment) or money(segment.split(" ", 1)[0]) is not None
                or _CUISINE.match(segment) or _MONEY_FOR.match(segment) or _NIGHTS.match(segment))


def _annotated(name: str, city: str | None, state: str | None, rest: list[str]) -> PlaceText:
    """The item with the values its segments after the city state."""
    cost: float | None = None
    per, nights, room = "", None, None
    cuisines: list[str] = []
    rules: list[str] = []
    allows: list[str] = []
    numbers: list[tuple[str, float]] = []
    unread: list[str] = []
    for segment in (r for r in rest if r):
        label = _PLACE_LABEL.match(segment)
        key = label["label"].lower() if label else ""
        value = segment[label.end() :] if label else segment
        if not value or value.lower() in NOT_STATED:
            continue
        if label and (field := next((f for f in _NUMBERS if label[f]), None)) is not None:
            try:  # "Minimum Nights: 2.0", "Review rate number: 4": a number the row holds
                numbers.append((field, float(value.split()[0])))
            except ValueError:
                unread.append(segment)
        elif "room" in key or (not key and value.lower() in ROOM_TYPES):
            room = ROOM_TYPES.get(value.lower(), value)
            if value.lower() not in ROOM_TYPES:
                unread.append(segment)
        elif "rule" in key or _HOUSE_RULE.match(value):
            rules += [r.strip() for r in re.split(r"(?i)\s*(?:&|,|\band\b)\s*", value) if r.strip()]
        elif "cuisine" in key or (not key and _CUISINE.match(value)):
            cuisines += [m.group(0) for m in _ONE_CUISINE.finditer(value)]
        elif (m := _NIGHTS.match(value)) is not None:
            nights = int(m[1])
        elif _PEOPLE.match(value) or _GROUP.match(value):
            per = per or "group"
        elif _PERSON.match(value) or _PER_NIGHT.match(value):
            per = per or ("person" if _PERSON.match(value) else "")
        elif _FILLER.match(value):
            continue
        elif (m := _ALLOWS.match(value)) is not None and (rule := _allowed(m["a"] or m["b"])) is not None:
            allows.append(rule)  # "Pet-friendly": the listing has no "No pets" rule
        else:
            amount, qualifier = value, ""
            if (q := _MONEY_FOR.match(value)) is not None:
                amount, qualifier = q[1], q[2]
            elif (q := _SLASH_UNIT.match(value)) is not None:  # "218/night", "25/person"
                amount, qualifier = q[1], f"per {q[2]}"
            parsed = 0.0 if amount.lower() in FREE else money(amount)
            if parsed is None or (key and "cost" not in key and "price" not in key and "fare" not in key):
                unread.append(segment)
                continue
            cost = parsed if cost is None else cost
            if "person" in key:
                per = "person"
            if qualifier:
                if (m := _NIGHTS.match(qualifier)) is not None:
                    nights = int(m[1])
                elif _PERSON.match(qualifier):
                    per = "person"
                elif _PEOPLE.match(qualifier) or _GROUP.match(qualifier):
                    per = per or "group"
                elif not _PER_NIGHT.match(qualifier):
                    unread.append(qualifier)
    return PlaceText(name, city, state, cost, per, nights, tuple(cuisines), room, tuple(rules), tuple(allows),
                     tuple(numbers), tuple(unread))


_NUMBERS = ("minimum_nights", "maximum_occupancy", "rating")


def _allowed(word: str) -> str | None:
    """The house rule a remark says the place does not have (``smoker`` -> ``No smoking``)."""
    word = word.lower()
    return next((rule for stem, rule in ALLOWED.items() if word.startswith(stem)), None)


# ------------------------------------------------------------------------------------------- a day's city

_LEG_WORDS = re.compile(r"(?i)^(?:from\s+)?(?P<a>.+?)\s*(?:\s+to\s+|\s*(?:->|→|–>|=>)\s*|\s+[-–—]\s+)(?P<b>.+)$")


def read_current_city(text: object, cities: frozenset[str]) -> object:
    """A ``current_city`` as strict reads it: ``from A to B`` or one city, whatever the case of ``from``/``to``,
    the spacing, trailing punctuation, or an arrow for ``to`` (``Moline to Rockford``, ``From A -> B``); the
    text unchanged when it is not one of these (the route check names it)."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        return text
    return _read_current_city(text, cities)


@lru_cache(maxsize=16384)
def _read_current_city(text: str, cities: frozenset[str]) -> str:
    flat = collapse(text).rstrip(" .!;:,")
    if _bare_city(flat) in cities:
        return flat
    m = _LEG_WORDS.match(flat)
    if m is None:
        return text
    origin, destination = _STATE_CODE.sub("", m["a"]).strip(), _STATE_CODE.sub("", m["b"]).strip()
    if _bare_city(origin) in cities and _bare_city(destination) in cities:
        return f"from {origin} to {destination}"
    return text


def _bare_city(text: str) -> str:
    cut = text.find("(")
    return _STATE_CODE.sub("", (text if cut < 0 else text[:cut])).strip()


_STATE_CODE = re.compile(r",\s*[A-Z]{2}$")  # "Pensacola, FL"
