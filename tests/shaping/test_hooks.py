"""Every hook is tested here (``test_hook_<name>``) and documented in docs/hooks.md; a meta-test enforces both."""

import inspect
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from planshape.shaping import Shaper, hookspecs, plugins
from planshape.shaping.advantages import Advantages, Rollouts
from planshape.shaping.hookspecs import hookimpl
from planshape.shaping.reward import Scorer, read_query
from planshape.shaping.schedules import Schedule, Stage
from planshape.validators.travelplanner.checks.registry import COMMONSENSE, Check

ROOT = Path(__file__).resolve().parents[2]
ANSWER = (ROOT / "validators/travelplanner/sample_world/rollouts.jsonl").read_text().splitlines()[0]


@pytest.fixture
def registered():
    """Register plugin objects for one test, then restore the manager."""
    names = []

    def register(plugin, name):
        plugins.plugin_manager().register(plugin, name=name)
        names.append(name)

    yield register
    for name in names:
        plugins.plugin_manager().unregister(name=name)


@pytest.fixture
def sample_row():
    return json.loads(ANSWER)


def test_hook_planshape_extract_answer(registered, sample_row, sample_store):
    assert plugins.extract_answer("x <answer>1</answer> y <answer> 2 </answer>") == "2"
    assert plugins.extract_answer("<answer>unterminated") is None

    class Fenced:
        @hookimpl
        def planshape_extract_answer(self, text):
            return text.split("```json", 1)[1].split("```", 1)[0] if "```json" in text else None

    no_block = Scorer(sample_store).score("no block", sample_row["query"])
    assert no_block.reason == "no <answer>...</answer> block in the output"
    registered(Fenced(), "fenced")
    body = sample_row["text"].split("<answer>")[1].split("</answer>")[0]
    scorer = Scorer(sample_store)
    assert scorer.score(f"plan:\n```json\n{body}\n```", sample_row["query"]).components["pass"] == 1.0
    assert plugins.extract_answer("<answer>a</answer>") == "a"  # the built-in still answers when the plugin abstains
    missing = scorer.score("nothing here", sample_row["query"])
    assert missing.failure == "no_answer" and "'fenced'" in missing.reason and "<answer>" not in missing.reason


def test_hook_planshape_checks(registered, sample_row, sample_store):
    def no_pets(trip):
        return (False, "pets seen") if "Pet" in json.dumps(trip.days) else (True, "no pets")

    class Extra:
        @hookimpl
        def planshape_checks(self):
            return [Check("no_pet_shops", "No Pet Shops", "commonsense", no_pets)]

    registered(Extra(), "extra-check")
    commonsense, hard = plugins.checks()
    assert [c.key for c in commonsense] == [c.key for c in COMMONSENSE] + ["no_pet_shops"]
    assert len(hard) == 5
    scorer = Scorer(sample_store)
    scored = scorer.score(sample_row["text"], sample_row["query"])
    result, _ = scorer.check(scorer.read(sample_row["text"]).plan, read_query(sample_row["query"]))
    assert "no_pet_shops" in result.commonsense and scored.components["cs_micro"] == 1.0
    assert "commonsense:no_pet_shops" in scored.categories

    class Clash:
        @hookimpl
        def planshape_checks(self):
            return [Check("valid_cost", "Budget again", "hard", no_pets)]

    registered(Clash(), "clash")
    with pytest.raises(ValueError, match="provided by two plugins"):
        plugins.checks()


def test_hook_planshape_audit_relations(registered, train, memory_database):
    """A plugin's relation runs beside the built-ins, and a plugin's check is audited with them: a check that
    reads a city's text as written breaks the built-in city-forms relation, with the check's own reason."""
    from planshape.shaping.audit import Case, audit
    from planshape.validators.travelplanner.evaluation.relations import LOWER, Relation

    def no_dinner(subject):
        plan = [dict(day) for day in subject.plan]
        plan[1]["dinner"] = "-"
        yield "day 2 without its dinner", plan

    def bare_cities(trip):
        written = any("(" in day.get("current_city", "") for day in trip.days if isinstance(day, dict))
        return (False, "a city written with its state") if written else (True, "cities as written")

    class Audited:
        @hookimpl
        def planshape_audit_relations(self):
            return [Relation("dinner-left-out", LOWER, "a stay day without its dinner", no_dinner)]

        @hookimpl
        def planshape_checks(self):
            return [Check("bare_cities", "Bare Cities", "commonsense", bare_cities)]

    registered(Audited(), "audited")
    relations = [r for r in plugins.audit_relations() if r.name in ("dinner-left-out", "city-forms")]
    assert [r.name for r in relations] == ["city-forms", "dinner-left-out"]
    query, gold = train[0]  # St. Petersburg -> Rockford: bare cities in the gold plan
    report = audit([Case("gold 0", query, gold[: query.days])], Scorer(memory_database, "strict", "stage1"), relations,
                   ("strings",))
    assert [(o.relation, o.held) for o in report.outcomes] == [("city-forms", False), ("dinner-left-out", True)]
    assert report.broken[0].reason == "a city written with its state"

    class Twice:
        @hookimpl
        def planshape_audit_relations(self):
            return [Relation("city-forms", LOWER, "again", no_dinner)]

    registered(Twice(), "twice")
    with pytest.raises(ValueError, match="provided by two plugins"):
        plugins.audit_relations()


def test_hook_planshape_reward_components(registered, sample_row, sample_store):
    class Brevity:
        @hookimpl
        def planshape_reward_components(self, result, query):
            return {"short_plan": 1.0 if len(result.commonsense) else 0.0}

    registered(Brevity(), "brevity")
    logged = Scorer(sample_store).score(sample_row["text"], sample_row["query"])
    assert logged.components["short_plan"] == 1.0 and logged.reward == 5.0  # logged only, weight 0
    weighted = Scorer(sample_store, component_weights={"short_plan": 2.0})
    weighted = weighted.score(sample_row["text"], sample_row["query"])
    assert weighted.reward == 7.0


def test_hook_planshape_schedules(registered, sample_row, sample_store):
    weights = {"cs_micro": 0.0, "hard_micro": 0.0, "cs_macro": 0.0, "hard_macro": 0.0, "pass": 3.0}

    class Mine:
        @hookimpl
        def planshape_schedules(self):
            return {"triple-pass": Schedule("triple-pass", (Stage(0, "only", weights),))}

    registered(Mine(), "mine")
    assert "curriculum-8b" in plugins.schedules() and "triple-pass" in plugins.schedules()
    assert Scorer(sample_store, schedule="triple-pass").score(sample_row["text"], sample_row["query"]).reward == 3.0

    class Again:
        @hookimpl
        def planshape_schedules(self):
            return {"stage2": Schedule("stage2", (Stage(0, "only", weights),))}

    registered(Again(), "again")
    with pytest.raises(plugins.PluginError, match="schedule 'stage2' is defined by plugins 'planshape.builtin' and "
                                                  "'again'"):
        plugins.schedules()


def test_hook_planshape_advantage_estimators(registered):
    class Flat:
        @hookimpl
        def planshape_advantage_estimators(self):
            def flat(rollouts, **_):
                ones = np.ones(len(rollouts.lengths))
                return Advantages(np.ones(len(rollouts.reward)), 0 * ones, ones)
            return {"flat": flat}

    registered(Flat(), "flat")
    r = Rollouts.build(["g", "g"], [1.0, 0.0], [True, False], [[3], [4, 5]])
    flat_shaper = Shaper.from_mapping({"database": "sample", "estimator": "flat"})
    assert flat_shaper.estimate(r, 0).per_turn.tolist() == [1.0, 1.0, 1.0]
    assert set(plugins.estimators()) >= {"grpo", "planpo", "flat"}
    with pytest.raises(ValueError, match="unknown advantage estimator 'ppo'"):
        Shaper.from_mapping({"database": "sample", "estimator": "ppo"})

    class Shadow:
        @hookimpl
        def planshape_advantage_estimators(self):
            return {"planpo": lambda rollouts: None}

    registered(Shadow(), "shadow")
    with pytest.raises(plugins.PluginError, match="'planpo' is defined by plugins 'planshape.builtin' and 'shadow'"):
        plugins.estimators()


def _install_entry_point(tmp_path, monkeypatch, name="demo", hook="planshape_extract_answer",
                         body="return 'demo' if text == 'ping' else None"):
    """A real distribution on sys.path advertising a ``planshape`` entry point."""
    module = f"planshape_{name}_plugin"
    (tmp_path / f"{module}.py").write_text(
        "from planshape.shaping.hookspecs import hookimpl\n"
        "@hookimpl\n"
        f"def {hook}(text):\n"
        f"    {body}\n")
    dist = tmp_path / f"{module}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: planshape-{name}-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[planshape]\n{name} = {module}\n")
    monkeypatch.syspath_prepend(str(tmp_path))


def test_misspelt_hookimpl_fails_at_start_up(tmp_path, monkeypatch):
    """pluggy's check_pending: a @hookimpl that matches no hook names the plugin and the hook."""
    _install_entry_point(tmp_path, monkeypatch, "typo", "planshape_extract_anwser", "return None")
    try:
        plugins.reset()
        with pytest.raises(plugins.PluginError, match="plugin 'typo'.*planshape_extract_anwser"):
            plugins.plugin_manager()
    finally:
        sys.modules.pop("planshape_typo_plugin", None)
        sys.path.remove(str(tmp_path))
        plugins.reset()


def test_entry_point_plugins_load_and_can_be_blocked(tmp_path, monkeypatch):
    _install_entry_point(tmp_path, monkeypatch)
    try:
        plugins.reset()
        assert plugins.extract_answer("ping") == "demo"
        assert "demo" in dict(plugins.describe())
        monkeypatch.setenv(plugins.BLOCK_ENV, "demo")
        plugins.reset()
        assert plugins.extract_answer("ping") is None
        monkeypatch.setenv(plugins.BLOCK_ENV, "planshape.builtin")
        plugins.reset()
        assert plugins.extract_answer("<answer>x</answer>") is None and plugins.schedules() == {}
    finally:
        monkeypatch.delenv(plugins.BLOCK_ENV, raising=False)
        sys.modules.pop("planshape_demo_plugin", None)
        plugins.reset()


def test_trace_switch_prints_hook_calls(monkeypatch, capsys):
    monkeypatch.setenv(plugins.TRACE_ENV, "1")
    try:
        plugins.reset()
        plugins.extract_answer("<answer>x</answer>")
        assert "planshape_extract_answer" in capsys.readouterr().err
    finally:
        monkeypatch.delenv(plugins.TRACE_ENV)
        plugins.reset()


def test_every_hook_is_tested_and_documented():
    specs = [name for name, fn in inspect.getmembers(hookspecs, inspect.isfunction) if name.startswith("planshape_")]
    assert len(specs) == 7
    tests = {name for name, _ in inspect.getmembers(sys.modules[__name__], inspect.isfunction)}
    docs = (ROOT / "docs/hooks.md").read_text()
    assert [s for s in specs if f"test_hook_{s}" not in tests] == []
    headings = {s: f"### `{s}({', '.join(sig.parameters)}) -> {sig.return_annotation}`"
                for s, sig in ((s, inspect.signature(getattr(hookspecs, s))) for s in specs)}
    assert [h for h in headings.values() if h not in docs] == []  # documented with its exact signature


def test_cli_lists_plugins(capsys):
    from planshape.shaping.cli import main

    assert main(["plugins"]) == 0
    assert "planshape.builtin" in capsys.readouterr().out


def test_hook_planshape_add_commands(registered, capsys):
    from planshape.shaping.cli import build_parser, main

    class Demo:
        @hookimpl
        def planshape_add_commands(self, subparsers):
            group = subparsers.add_parser("demo", help="a plugin's command group")
            group.set_defaults(func=lambda args: print("demo ran") or 0)

    registered(Demo(), "demo-commands")
    assert build_parser().parse_args(["demo"]).func is not None
    assert main(["demo"]) == 0 and "demo ran" in capsys.readouterr().out
    # the adapters come in the same way (entry points of the planshape group), not from a list in the core
    assert {"planshape-verl", "planshape-trl", "planshape-openrlhf"} <= set(plugins.versions())


def test_the_run_records_which_plugin_versions_made_its_rewards(tmp_path):
    from planshape.shaping.observe.verdict_log import read_log

    shaper = Shaper.from_mapping({"database": "sample", "estimator": "grpo", "log_dir": str(tmp_path)})
    versions = shaper.describe()["plugins"]
    assert versions[plugins.BUILTIN] == plugins.versions()[plugins.BUILTIN] != "unknown"
    shaper.score("no answer", {"org": "Harborview", "dest": "Lindenfield", "days": 3, "visiting_city_number": 1,
                               "date": ["2022-03-10", "2022-03-11", "2022-03-12"], "people_number": 1,
                               "local_constraint": {}, "budget": 1200, "query": "q", "level": "easy"}, 0)
    shaper.close()
    headers, _, _ = read_log(tmp_path)
    assert headers and headers[0]["describe"]["plugins"] == versions
