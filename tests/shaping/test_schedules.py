"""Reward schedules (Planner-R1 stages and curricula) and PlanPO's α decay."""

import pytest
from planshape.shaping.schedules import PRESETS, LinearDecay, ScheduleError, schedule_from_config


def test_stage_presets_match_the_paper():
    assert list(PRESETS["stage1"].weights(0).values()) == [1, 1, 1, 1, 1]
    assert list(PRESETS["stage2"].weights(10**6).values()) == [0, 0, 1, 1, 1]
    assert list(PRESETS["stage3"].weights(7).values()) == [0, 0, 0, 0, 1]


@pytest.mark.parametrize(("name", "switch"), [("curriculum-8b", (100, 400)), ("curriculum-32b", (50, 400))])
def test_curricula_switch_on_half_open_boundaries(name, switch):
    s = PRESETS[name]
    first, second = switch
    assert s.stage(0).name == s.stage(first - 1).name == "stage1"
    assert s.stage(first).name == s.stage(second - 1).name == "stage2"
    assert s.stage(second).name == s.stage(10_000).name == "stage3"


def test_user_schedule_from_config():
    s = schedule_from_config({"name": "mine", "stages": [
        {"start": 0, "weights": "stage1"},
        {"start": 20, "weights": [0.5, 0.5, 1, 1, 2]},
        {"start": 50, "weights": {"pass": 1.0}},
    ]})
    assert s.weights(19)["cs_micro"] == 1.0
    assert s.weights(20)["pass"] == 2.0
    assert s.weights(60) == {"cs_micro": 0, "hard_micro": 0, "cs_macro": 0, "hard_macro": 0, "pass": 1.0}


@pytest.mark.parametrize(("config", "message"), [
    ("stage4", "unknown schedule 'stage4'"),
    ({"stages": []}, "at least one stage"),
    ({"stages": [{"start": 5, "weights": "stage1"}]}, "first stage must start at step 0"),
    ({"stages": [{"start": 0, "weights": "stage1"}, {"start": 0, "weights": "stage2"}]}, "strictly increase"),
    ({"stages": [{"start": 0, "weights": [1, 1, -1, 1, 1]}]}, "must be a finite number >= 0"),
    ({"stages": [{"start": 0, "weights": [0, 0, 0, 0, 0]}]}, "all weights are 0"),
    ({"stages": [{"start": 0, "weights": [1, 1]}]}, "5 numbers"),
    ({"stages": [{"start": 0, "weights": {"bonus": 1}}]}, "unknown component"),
    ({"stages": [{"weights": "stage1"}]}, "needs 'start' and 'weights'"),
    (42, "preset name or a mapping"),
])
def test_invalid_schedules_fail_at_construction(config, message):
    with pytest.raises(ScheduleError, match=message):
        schedule_from_config(config)


def test_linear_decay():
    alpha = LinearDecay(0.1, 0.05, 150)
    assert alpha(0) == 0.1
    assert alpha(75) == pytest.approx(0.075)
    assert alpha(150) == alpha(10_000) == pytest.approx(0.05)
    with pytest.raises(ScheduleError, match="final <= init"):
        LinearDecay(0.05, 0.1, 10)
    with pytest.raises(ScheduleError, match="steps"):
        LinearDecay(0.1, 0.05, 0)
