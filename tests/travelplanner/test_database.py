"""Loading the official database directory with upstream semantics, and clear errors on bad files."""

import shutil

import pytest
from planshape.validators.travelplanner.store.database import DatabaseError, load_database
from planshape.validators.travelplanner.store.sandbox import ground_cost


def test_row_counts_match_upstream_loaders(memory_database):
    database = memory_database
    # notes §3: accommodations 5,047 raw rows -> 4,285 after dropna(); the others lose nothing.
    assert len(database.accommodations) == 4285
    assert len(database.restaurants) == 9551
    assert len(database.attractions) == 5302
    assert len(database.distances) == 17602
    assert len(database.flight_rows) == 313
    assert len(database.city_state) == 312
    assert database.city_state["St. Petersburg"] == "Saint Petersburg"  # geocoding artefact kept


def test_loader_agrees_with_pandas_read_csv_dropna(shared_dir, memory_database):
    database = memory_database
    pd = pytest.importorskip("pandas")
    raw = pd.read_csv(shared_dir / "database/accommodations/clean_accommodations_2022.csv").dropna()
    assert list(raw["NAME"].astype(str)) == [a.name for a in database.accommodations]
    assert list(raw["price"]) == [a.price for a in database.accommodations]
    rest = pd.read_csv(shared_dir / "database/restaurants/clean_restaurant_2022.csv").dropna()
    assert list(rest["Cuisines"]) == [r.cuisines for r in database.restaurants]


def test_distance_first_row_wins_and_cost_formulas(database):
    row = database.distance("Detroit", "Norfolk")
    assert row.distance == "1,144 km"
    assert ground_cost(database, "Detroit", "Norfolk", "self-driving") == int(1144 * 0.05)
    assert ground_cost(database, "Detroit", "Norfolk", "taxi") == 1144
    # a parenthesised state is removed before the lookup
    assert ground_cost(database, "Detroit(Michigan)", "Norfolk(Virginia)", "taxi") == 1144
    assert ground_cost(database, "Detroit", "Nowhere", "taxi") is None


def test_missing_file_is_named(tmp_path, shared_dir):
    shutil.copytree(shared_dir / "database", tmp_path / "db")
    (tmp_path / "db/flights/clean_Flights_2022.csv").unlink()
    with pytest.raises(DatabaseError, match="clean_Flights_2022.csv"):
        load_database(tmp_path / "db")


def test_missing_directory():
    with pytest.raises(DatabaseError, match="not a directory"):
        load_database("/no/such/database")


def test_malformed_row_names_file_and_line(tmp_path, shared_dir):
    shutil.copytree(shared_dir / "database", tmp_path / "db")
    path = tmp_path / "db/restaurants/clean_restaurant_2022.csv"
    lines = path.read_text().splitlines()
    lines[3] = lines[3].replace(",46,", ",forty-six,") if ",46," in lines[3] else lines[3] + ",extra,cells"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DatabaseError, match=r"clean_restaurant_2022.csv: line 4"):
        load_database(tmp_path / "db")


def test_non_numeric_price_is_an_error(tmp_path, sample_store):
    from planshape.validators.travelplanner.sample import sample_database

    shutil.copytree(sample_database(), tmp_path / "db")
    path = tmp_path / "db/accommodations/clean_accommodations_2022.csv"
    path.write_text(path.read_text().replace("180.0", "cheap"))
    with pytest.raises(DatabaseError, match=r"line 2: could not convert"):
        load_database(tmp_path / "db")


def test_city_file_tolerates_trailing_newline_and_names_bad_line(tmp_path):
    from planshape.validators.travelplanner.sample import sample_database

    shutil.copytree(sample_database(), tmp_path / "db")
    cities = tmp_path / "db/background/citySet_with_states.txt"
    cities.write_text(cities.read_text() + "\n")
    assert "Harborview" in load_database(tmp_path / "db").city_state
    cities.write_text(cities.read_text() + "Atlantis without a tab\n")
    with pytest.raises(DatabaseError, match="line 5"):
        load_database(tmp_path / "db")


def test_rows_with_missing_values_are_dropped(sample_store):
    # the sample's "Unlisted Rules Loft" has an empty house_rules cell, like 710 official listings
    assert not sample_store.places("accommodations", "Unlisted Rules Loft", "Lindenfield")
