"""The on-disk store: same verdicts as in memory (the whole suite runs on both through the ``database``
fixture), caching with invalidation, many readers, fork, threads, and a larger-than-shared flights table."""

import multiprocessing
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from planshape.validators.travelplanner.checks.verdicts import check_plan
from planshape.validators.travelplanner.store.sqlite import (
    CACHE_NAME,
    SqliteStore,
    StoreError,
    build_store,
    cache_path,
    cached_store,
)
from planshape.validators.travelplanner.store.synthetic import write_full_size_database


@pytest.fixture(scope="module")
def store_file(shared_dir, tmp_path_factory):
    path = tmp_path_factory.mktemp("s") / "sandbox.sqlite"
    build_store(shared_dir / "database", path)
    return path


def _verdicts(store, train):
    return [check_plan(p, q, store, "strict").to_dict() for q, p in train]


def test_lookups_agree_with_memory(store_file, memory_database):
    store = SqliteStore(store_file)
    assert store.city_state == memory_database.city_state
    for table in ("restaurants", "attractions", "accommodations"):
        for city in ("Rockford", "Chicago", "Dallas", "Nowhere"):
            assert store.in_city(table, city) == memory_database.in_city(table, city)
            for name in ("", "Ca", "The", "Coco Bambu"):
                for exact in (False, True):
                    assert store.places(table, name, city, exact) == memory_database.places(table, name, city, exact)
    for number in ("F3573659", "F0000000"):
        assert store.first_flight(number) == memory_database.first_flight(number)
    assert store.flights("St. Petersburg", "Rockford", "2022-03-16") == memory_database.flights(
        "St. Petersburg", "Rockford", "2022-03-16")
    assert store.distance("Detroit", "Norfolk") == memory_database.distance("Detroit", "Norfolk")
    assert store.counts()["accommodations"] == 4285


def test_missing_or_foreign_file_is_a_clear_error(tmp_path):
    with pytest.raises(StoreError, match="planshape db build"):
        SqliteStore(tmp_path / "absent.sqlite")


def test_cache_is_built_reused_and_invalidated(shared_dir, tmp_path):
    db = tmp_path / "db"
    shutil.copytree(shared_dir / "database", db)
    first = cached_store(db)
    assert first.path == db / CACHE_NAME
    built = first.path.stat().st_mtime_ns
    assert cached_store(db).path.stat().st_mtime_ns == built  # reused
    restaurants = db / "restaurants/clean_restaurant_2022.csv"
    lines = restaurants.read_text().splitlines()
    restaurants.write_text("\n".join(lines[:-1]) + "\n")  # a source file changes
    rebuilt = cached_store(db)
    assert rebuilt.counts()["restaurants"] == 9550


def test_read_only_directory_caches_in_user_folder(shared_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    path = cache_path(shared_dir / "database")
    assert path.parent == tmp_path / "cache" / "planshape"


def test_cache_dir_from_environment(shared_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("PLANSHAPE_CACHE_DIR", str(tmp_path / "stores"))
    path = cache_path(shared_dir / "database")
    assert path.parent == tmp_path / "stores" and path.suffix == ".sqlite"
    assert cache_path(shared_dir / "database") == path  # stable per database folder


def _check_in_child(args):
    path, rows = args
    store = SqliteStore(path)
    return [check_plan(p, q, store, "official").final_pass for q, p in rows]


def test_many_reader_processes_on_one_file(store_file, train):
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        results = pool.map(_check_in_child, [(store_file, train)] * 3)
    assert results == [[True] * len(train)] * 3


def test_store_survives_fork(store_file, train):
    store = SqliteStore(store_file)
    assert all(check_plan(p, q, store).final_pass for q, p in train[:3])  # parent connection in use
    ctx = multiprocessing.get_context("fork")
    queue = ctx.SimpleQueue()
    child = ctx.Process(target=lambda: queue.put(_verdicts(store, train)))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert queue.get() == _verdicts(store, train)


def test_threads_share_a_store(store_file, train):
    store = SqliteStore(store_file)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: _verdicts(store, train), range(4)))
    assert all(r == results[0] for r in results)


def test_scale_synthetic_flights(shared_dir, train, tmp_path):
    """A flights table far larger than the shared one: gold plans still pass, a fresh process opens it."""
    db = write_full_size_database(shared_dir / "database", tmp_path / "big", rows=150_000, seed=1)
    store_path = tmp_path / "big.sqlite"
    counts = build_store(db, store_path)
    assert counts["flights"] == 150_000
    store = SqliteStore(store_path)
    assert all(check_plan(p, q, store, mode).final_pass for q, p in train for mode in ("official", "strict"))
    code = ("import sys; from planshape.validators.travelplanner.store.sqlite import SqliteStore; "
            "print(SqliteStore(sys.argv[1]).first_flight('F10000000').flight_number)")
    out = subprocess.run([sys.executable, "-c", code, str(store_path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "F10000000"


def test_cli_db_build_and_evaluate_on_store(shared_dir, tmp_path, capsys, train_records):
    import json

    from planshape.shaping.cli import main
    from planshape.validators.travelplanner.query import gold_plan

    store_path = tmp_path / "s.sqlite"
    assert main(["db", "build", str(shared_dir / "database"), "-o", str(store_path)]) == 0
    assert "flights 313" in capsys.readouterr().out
    plans = tmp_path / "gold.jsonl"
    plans.write_text("".join(json.dumps({"plan": gold_plan(r)}) + "\n" for r in train_records))
    report = tmp_path / "r.json"
    assert main(["evaluate", str(plans), "--queries", str(shared_dir / "train.csv"), "--database", str(store_path),
                 "--split", "train", "--json", str(report), "--no-progress"]) == 0
    assert json.loads(report.read_text())["metrics"]["rates"]["final_pass_rate"] == 1.0


def test_building_a_store_reports_progress(shared_dir, tmp_path, capsys):
    """``planshape db build`` on the full flights table runs for a minute: it shows rows per table as they go."""
    from planshape.shaping.cli import main
    from planshape.validators.travelplanner.store.sqlite import build_store

    seen: list[tuple[str, int]] = []
    counts = build_store(shared_dir / "database", tmp_path / "a.sqlite", progress=lambda *a: seen.append(a))
    tables = [t for t, _ in seen]
    assert tables[-1] == "indexes" and set(tables[:-1]) == {"restaurants", "attractions", "accommodations",
                                                              "flights", "distances"}
    last = {t: n for t, n in seen if t != "indexes"}
    assert last == {t: counts[t] for t in last}  # the final report of each table is its row count
    assert main(["db", "build", str(shared_dir / "database"), "-o", str(tmp_path / "b.sqlite"), "--no-progress"]) == 0
    assert "built " in capsys.readouterr().out
