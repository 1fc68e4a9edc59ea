"""What a user can set or call is documented (datasette's ``test_settings_are_documented`` idea): every
``ShapingConfig`` field, every name the facade exports and every public ``Shaper`` member appear in
docs/adapter-kit.md, and its metric table lists exactly the names the facade logs. Merge-conflict markers fail
anywhere in the repository (prose outside code blocks included). The hooks have their own meta-test
(tests/shaping/test_hooks.py)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import planshape.shaping.facade as facade
import pytest
from planshape.shaping.config import ShapingConfig, _Section
from planshape.shaping.facade import Shaper
from planshape.shaping.facade.shaper import Moved

ROOT = Path(__file__).resolve().parents[1]
KIT = (ROOT / "docs" / "adapter-kit.md").read_text(encoding="utf-8")


def _fields(model: type[_Section], prefix: str = "") -> list[str]:
    out = []
    for name, info in model.model_fields.items():
        out.append(prefix + name)
        if isinstance(info.annotation, type) and issubclass(info.annotation, _Section):
            out.extend(_fields(info.annotation, f"{prefix}{name}."))
    return out


def _documented(name: str, text: str = KIT) -> bool:
    """``name`` in backticks, alone or as the start of a call or a member (``score(``, ``Shaper.score``)."""
    return re.search(r"`(?:[\w.]*\.)?" + re.escape(name) + r"(?:\(|`| |\[)", text) is not None


def test_every_config_field_is_documented():
    top = [f for f in _fields(ShapingConfig) if "." not in f]
    nested = [f for f in _fields(ShapingConfig) if "." in f]
    assert [f for f in top if not re.search(rf"^\| `{f}` \|", KIT, re.M)] == []  # a row of the table each
    assert [f for f in nested if f.split(".")[1] not in KIT] == []  # named in their section's row


def test_every_facade_name_is_documented():
    assert [name for name in facade.__all__ if not _documented(name)] == []


FACE = {
    "config", "scorer", "from_mapping", "shared", "estimator_only", "staged", "describe", "explain", "pool", "close",
    "score", "score_batch", "unscored", "max_reward", "carried", "carried_names", "weigh_carried",
    "success_of", "success_from_rewards", "success_flag",
    "metric_names", "advantage_metric_names", "metric_groups", "metric_columns", "metric_means", "logged_means",
    "advantages", "uses_anchors", "alpha", "estimate", "require_estimator", "step_reward_field",
    "refuse_unread_step_rewards",
    "messages", "tools", "tool_schemas", "prompt_version",
}
"""``Shaper``'s public face: what adapters and users call, and no more (52 names before issue 35, 37 after: 34, and
the three that scoring-only configs and per-turn rewards need; the data side is the facade's functions, and each part
is an object of its own: ``scorer``, the estimator, the agent side, the process's resources, the description)."""


def test_the_shaper_face_is_what_adapters_and_users_call():
    shaper = Shaper.from_mapping({"database": "sample", "estimator": "grpo"})
    public = {m for m in dir(shaper) if not m.startswith("_") and not isinstance(Shaper.__dict__.get(m), Moved)}
    assert public == FACE


def test_every_public_shaper_member_is_documented():
    assert [m for m in sorted(FACE) if not _documented(m)] == []


def test_the_former_staticmethods_still_work_and_say_where_they_went():
    with pytest.warns(DeprecationWarning, match="from planshape.shaping.facade import gold_answer"):
        moved = Shaper.gold_answer
    assert moved is facade.gold_answer


def test_the_metric_table_lists_exactly_what_the_facade_logs():
    shaper = Shaper.from_mapping({"database": "sample", "monitor": True, "estimator": "grpo"})
    table = {row.split("|")[1].strip(" `"): row.split("|")[2] for row in KIT.splitlines()
             if re.match(r"^\| `(core|components|failures|monitor|advantages)` \|", row)}
    assert sorted(table) == sorted(shaper.metric_groups)
    for group, names in shaper.metric_groups.items():
        listed = set(re.findall(r"`([\w/<>:]+)`", table[group]))
        bare = {n.removeprefix("planshape/") for n in names}
        if group == "failures":
            assert "failure/<category>" in listed and f"({len(names)})" in table[group]
        elif group == "monitor":
            assert {n for n in bare if not n.startswith("exploit/") or n == "exploit/unattributed"} <= listed
        else:
            assert listed == bare, group


def _tracked() -> list[Path]:
    try:
        names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return [ROOT / n for n in names.splitlines()]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: every file under the root
        return [p for p in ROOT.rglob("*") if p.is_file() and ".venv" not in str(p) and ".git" not in p.parts]


CONFLICT = re.compile(r"^(<{7}|={7}|>{7})( |$)", re.M)


@pytest.mark.parametrize("suffix", [".md", ".py", ".yaml", ".sh", ".toml", ".json"])
def test_no_merge_conflict_markers_anywhere(suffix):
    marked = []
    for path in _tracked():
        if path.suffix == suffix and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            marked += [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}"
                       for m in CONFLICT.finditer(text)]
    assert marked == []
