"""The sandbox as an on-disk SQLite store: built once from the official CSV directory, then opened
read-only and memory-mapped by every worker process, without re-parsing and without a private copy of
the 3.8-million-row flights table.

* ``build_store(directory, path)`` reads the CSVs with the same loaders as the in-memory ``Sandbox`` (so the
  rows, their order, and the dropped rows are identical) and writes indexed tables.
* ``SqliteStore(path)`` answers the ``SandboxStore`` lookups with the same semantics (first row in file
  order wins; substring names); ``tests/travelplanner/test_store.py`` runs the whole check suite on both.
* ``cached_store(directory)`` keeps a store next to the directory (or in the user cache when that is
  read-only) and rebuilds it when a source file changes (size or modification time).

Connections are per process and per thread, so a store survives ``fork`` and thread pools.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from .database import FILES, database_paths, load_database, read_city_states, read_distances, read_rows
from .sandbox import Accommodation, Attraction, Distance, Flight, Restaurant, SandboxStore, containing, name_key

FORMAT = "planshape-sandbox-1"
CACHE_NAME = ".planshape-sandbox.sqlite"
TABLES: dict[str, Any] = {  # table -> its NamedTuple row type
    "restaurants": Restaurant,
    "attractions": Attraction,
    "accommodations": Accommodation,
    "flights": Flight,
    "distances": Distance,
}
INDEXES = (
    "CREATE INDEX restaurants_city ON restaurants(city)",
    "CREATE INDEX attractions_city ON attractions(city)",
    "CREATE INDEX accommodations_city ON accommodations(city)",
    "CREATE INDEX flights_number ON flights(flight_number)",
    "CREATE INDEX flights_route_date ON flights(origin, destination, flight_date)",
    "CREATE INDEX distances_pair ON distances(origin, destination)",
)


class StoreError(ValueError):
    """The store file is missing, of another format, or stale."""


def fingerprint(directory: str | Path) -> dict[str, list[int]]:
    """Size and modification time of every source file: a change to any of them invalidates a cache."""
    return {key: [p.stat().st_size, p.stat().st_mtime_ns] for key, p in database_paths(directory).items()}


Progress = Callable[[str, int], None]
"""Told ``(what, rows so far)`` while a store is built (a full flights table takes about a minute)."""


def _insert(db: sqlite3.Connection, table: str, rows: Iterable[tuple], batch: int = 50_000,
            progress: Progress | None = None) -> int:
    fields = TABLES[table]._fields
    sql = f"INSERT INTO {table} ({', '.join(fields)}) VALUES ({', '.join('?' * len(fields))})"
    count, chunk = 0, []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= batch:
            db.executemany(sql, chunk)
            count += len(chunk)
            chunk.clear()
            if progress is not None:
                progress(table, count)
    db.executemany(sql, chunk)
    if progress is not None:
        progress(table, count + len(chunk))
    return count + len(chunk)


def build_store(directory: str | Path, path: str | Path, progress: Progress | None = None) -> dict[str, int]:
    """Write the store for an official-layout directory to ``path`` (atomically); returns row counts.
    ``progress`` is told each table's rows as they are written, then ``("indexes", 0)``."""
    paths = database_paths(directory)
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    db = sqlite3.connect(tmp)
    try:
        db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA page_size=8192;")
        for table, row_type in TABLES.items():
            db.execute(f"CREATE TABLE {table} ({', '.join(row_type._fields)})")
        db.execute("CREATE TABLE city_state (city TEXT PRIMARY KEY, state TEXT)")
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        counts = {table: _insert(db, table, read_rows(paths[table], table), progress=progress)
                  for table in ("restaurants", "attractions", "accommodations", "flights")}
        counts["distances"] = _insert(db, "distances", read_distances(paths["distances"]), progress=progress)
        cities = read_city_states(paths["cities"])
        db.executemany("INSERT INTO city_state VALUES (?, ?)", cities.items())
        counts["cities"] = len(cities)
        if progress is not None:
            progress("indexes", 0)
        for statement in INDEXES:
            db.execute(statement)
        meta = {"format": FORMAT, "source": str(Path(directory).resolve()),
                "fingerprint": json.dumps(fingerprint(directory)), "counts": json.dumps(counts)}
        db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        db.commit()
        db.execute("ANALYZE")
        db.commit()
    finally:
        db.close()
    os.replace(tmp, path)
    return counts


class SqliteStore:
    """Read-only lookups over a built store file, one connection per process and thread."""

    memoise = True

    def __init__(self, path: str | Path, mmap_bytes: int = 1 << 30):
        self.path = Path(path)
        if not self.path.is_file():
            raise StoreError(f"{self.path}: no such store; build it with `planshape db build DIR -o {self.path}`")
        self.source = str(self.path)
        self._mmap = mmap_bytes
        self._local = threading.local()
        try:
            meta = dict(self._db().execute("SELECT key, value FROM meta"))
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a planshape store ({exc}); build one with "
                             f"`planshape db build DIR -o FILE`, or pass the database directory") from None
        if meta.get("format") != FORMAT:
            raise StoreError(f"{self.path}: store format {meta.get('format')!r}, expected {FORMAT!r}; rebuild it")
        self.meta = meta
        self.city_state = dict(self._db().execute("SELECT city, state FROM city_state"))
        # The cities each place table has rows in: a lookup in any other city (model-written text, possibly
        # 100 KB long) answers at once, without a query and without filling the per-city cache.
        self._cities = {table: frozenset(c for (c,) in self._db().execute(f"SELECT DISTINCT city FROM {table}"))
                        for table in ("restaurants", "attractions", "accommodations")}

    def _db(self) -> sqlite3.Connection:
        local = self._local
        if getattr(local, "pid", None) != os.getpid():  # a fresh connection after fork
            local.db = sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
            local.db.execute(f"PRAGMA mmap_size={self._mmap}")
            local.pid = os.getpid()
        return local.db

    def _rows(self, table: str, sql: str, args: tuple) -> list:
        row_type = TABLES[table]
        return [row_type(*r) for r in self._db().execute(sql, args)]

    @lru_cache(maxsize=4096)  # noqa: B019 - the store lives as long as the process; rows are immutable
    def _city(self, table: str, city: str) -> tuple:
        return tuple(self._rows(table, f"SELECT * FROM {table} WHERE city = ? ORDER BY rowid", (city,)))

    @lru_cache(maxsize=4096)  # noqa: B019 - as _city
    def _named(self, table: str, city: str) -> dict[str, list]:
        out: dict[str, list] = {}
        for row in self._city(table, city):
            out.setdefault(name_key(row.name), []).append(row)
        return out

    @lru_cache(maxsize=4096)  # noqa: B019 - as _city
    def _containing(self, table: str, city: str) -> dict[str, tuple]:
        return containing(self._city(table, city))

    def places(self, table: str, name: str, city: str, exact: bool = False) -> list:
        if city not in self._cities[table]:
            return []
        if exact:
            named = self._named(table, city)
            rows = named.get(name)  # the name as the plan writes it (most): no normalising
            return list(rows if rows is not None else named.get(name_key(name), ()))
        found = self._containing(table, city).get(name)
        return list(found) if found is not None else [r for r in self._city(table, city) if name in r.name]

    def in_city(self, table: str, city: str) -> list:
        return list(self._city(table, city)) if city in self._cities[table] else []

    def flight_on_route(self, number: str, origin: str, destination: str, date: str | None = None) -> Flight | None:
        sql = "SELECT * FROM flights WHERE flight_number = ? AND origin = ? AND destination = ?"
        args: tuple = (number, origin, destination)
        if date is not None:
            sql, args = sql + " AND flight_date = ?", (*args, date)
        rows = self._rows("flights", sql + " ORDER BY rowid LIMIT 1", args)
        return rows[0] if rows else None

    def first_flight(self, number: str) -> Flight | None:
        rows = self._rows("flights", "SELECT * FROM flights WHERE flight_number = ? ORDER BY rowid LIMIT 1", (number,))
        return rows[0] if rows else None

    def flight_at(self, index: int) -> Flight:
        """The flights table's row ``index`` (0-based, file order): what the query synthesizer samples."""
        rows = self._rows("flights", "SELECT * FROM flights WHERE rowid = ?", (index + 1,))
        if not rows:
            raise IndexError(f"no flight row {index}")
        return rows[0]

    def flights(self, origin: str, destination: str, date: str) -> list[Flight]:
        return self._rows("flights", "SELECT * FROM flights WHERE origin = ? AND destination = ? AND flight_date = ? "
                                     "ORDER BY rowid", (origin, destination, date))

    def distance(self, origin: str, destination: str) -> Distance | None:
        rows = self._rows("distances", "SELECT * FROM distances WHERE origin = ? AND destination = ? "
                                       "ORDER BY rowid LIMIT 1", (origin, destination))
        return rows[0] if rows else None

    def counts(self) -> dict[str, int]:
        return json.loads(self.meta["counts"])


CACHE_ENV = "PLANSHAPE_CACHE_DIR"


def cache_path(directory: str | Path) -> Path:
    """Where the store of a database directory is cached.

    ``$PLANSHAPE_CACHE_DIR`` when set (e.g. shared storage on a cluster, or a read-only dataset folder
    reached as root, for whom every folder looks writable); else next to the database when that folder is
    writable; else the user's cache folder.
    """
    root = Path(directory).resolve()
    named = f"sandbox-{hashlib.sha1(str(root).encode()).hexdigest()[:16]}.sqlite"
    if os.environ.get(CACHE_ENV):
        base = Path(os.environ[CACHE_ENV])
    elif os.access(root, os.W_OK):
        return root / CACHE_NAME
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "planshape"
    base.mkdir(parents=True, exist_ok=True)
    return base / named


def _fresh(path: Path, directory: str | Path) -> bool:
    if not path.is_file():
        return False
    try:
        store = SqliteStore(path)
    except (StoreError, sqlite3.DatabaseError):
        return False
    return json.loads(store.meta["fingerprint"]) == fingerprint(directory)


def cached_store(directory: str | Path) -> SqliteStore:
    """The store of a database directory, built on first use and rebuilt when a source file changes.

    Concurrent workers take a file lock, so exactly one of them builds while the others wait.
    """
    path = cache_path(directory)
    if not _fresh(path, directory):
        with open(path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if not _fresh(path, directory):
                    build_store(directory, path)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
    return SqliteStore(path)


def flights_size(directory: str | Path) -> int:
    with contextlib.suppress(OSError):
        return (Path(directory) / FILES["flights"]).stat().st_size
    return 0


MEMORY_LIMIT = 50_000_000  # flights CSV bytes above which a directory is served from its SQLite store
BACKENDS = ("auto", "memory", "sqlite")


@lru_cache(maxsize=8)
def open_store(database: str, backend: str = "auto") -> SandboxStore:
    """The sandbox, opened once per process: a built store file, or a database directory.

    A directory is loaded into memory (``backend="memory"``) or served from its automatically built and
    cached SQLite store (``"sqlite"``); ``"auto"`` picks SQLite when the flights table is large (full size).
    Raises ``StoreError`` / ``DatabaseError`` (both ``ValueError``) naming the path and what to do.
    """
    path = Path(database)
    if backend not in BACKENDS:
        raise ValueError(f"unknown store backend {backend!r}; choose one of {BACKENDS}")
    if path.is_file():
        return SqliteStore(path)
    if not path.is_dir():
        raise StoreError(f"{path}: no such database directory or store file")
    if backend == "memory" or (backend == "auto" and flights_size(path) < MEMORY_LIMIT):
        return load_database(path)
    return cached_store(path)
