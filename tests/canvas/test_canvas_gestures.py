"""gesture_chain step validation and clamps (pure), and refusals through the dispatch
path before any session is opened. Execution on Chromium is in test_canvas_capture."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.errors import ToolError
from browx_actors.tools.canvas import MAX_STEPS, MAX_WAIT_MS, MIN_MOVE_MS, Step, plan_steps


def _refused(steps: object) -> ToolError:
    with pytest.raises(ToolError) as caught:
        plan_steps(steps)
    return caught.value


def test_a_valid_program_plans_every_kind() -> None:
    plan = plan_steps([
        {"kind": "down", "x": 1, "y": 2.5},
        {"kind": "move", "x": 3, "y": 4, "ms": 20},
        {"kind": "move", "x": 5, "y": 6},
        {"kind": "up", "x": 5, "y": 6, "pointerId": 1},
        {"kind": "wait", "ms": 100},
        {"kind": "wheel", "deltaY": -40},
        {"kind": "wheel", "x": 9, "y": 9, "deltaX": 3},
    ])
    assert plan.steps == (
        Step("down", 1, 2.5), Step("move", 3, 4, ms=20), Step("move", 5, 6), Step("up", 5, 6),
        Step("wait", ms=100), Step("wheel", delta_y=-40), Step("wheel", 9, 9, delta_x=3),
    )
    assert plan.warnings == () and plan.planned_ms == 120


def test_move_pacing_floors_and_waits_clamp_with_warnings() -> None:
    plan = plan_steps([{"kind": "move", "x": 0, "y": 0, "ms": 1},
                       {"kind": "move", "x": 0, "y": 0, "ms": 0},
                       {"kind": "wait", "ms": 7000},
                       {"kind": "wait", "ms": 5000}])
    assert [s.ms for s in plan.steps] == [MIN_MOVE_MS, MIN_MOVE_MS, MAX_WAIT_MS, MAX_WAIT_MS]
    assert plan.warnings == (
        "steps[0]: move pacing 1 ms raised to the 5 ms floor",
        "steps[1]: move pacing 0 ms raised to the 5 ms floor",
        "steps[2]: wait 7000 ms clamped to 5000 ms; split longer waits across calls",
    )


def test_step_limit_is_200() -> None:
    assert len(plan_steps([{"kind": "wait", "ms": 0}] * MAX_STEPS).steps) == 200
    err = _refused([{"kind": "wait", "ms": 0}] * (MAX_STEPS + 1))
    assert err.code == "too-many-steps" and err.details == {"stepCount": 201, "maxSteps": 200}


@pytest.mark.parametrize(
    ("steps", "field", "words"),
    [
        ([], "steps", "empty"),
        ("down", "steps", "array"),
        ([3], "steps[0]", "must be an object"),
        ([{"kind": "tap", "x": 1, "y": 1}], "steps[0].kind", "one of down, up, move, wait, wheel"),
        ([{"x": 1, "y": 1}], "steps[0].kind", "one of"),
        ([{"kind": "down", "x": 1}], "steps[0].y", "required for down steps"),
        ([{"kind": "up", "y": 1}], "steps[0].x", "required for up steps"),
        ([{"kind": "move", "x": "1", "y": 1}], "steps[0].x", "must be a number"),
        ([{"kind": "move", "x": True, "y": 1}], "steps[0].x", "must be a number"),
        ([{"kind": "move", "x": float("nan"), "y": 1}], "steps[0].x", "finite"),
        ([{"kind": "down", "x": 1, "y": 1, "ms": 5}], "steps[0].ms", "not down"),
        ([{"kind": "down", "x": 1, "y": 1, "deltaY": 5}], "steps[0].deltaY", "wheel steps"),
        ([{"kind": "wait"}], "steps[0].ms", "required for wait steps"),
        ([{"kind": "wait", "ms": -1}], "steps[0].ms", "at least 0"),
        ([{"kind": "wait", "ms": 5, "x": 1}], "steps[0].x", "does not apply"),
        ([{"kind": "wheel", "x": 1, "y": 1}], "steps[0].deltaY", "non-zero deltaX or deltaY"),
        ([{"kind": "wheel", "deltaX": 0, "deltaY": 0}], "steps[0].deltaY", "non-zero"),
        ([{"kind": "wheel", "deltaY": 3, "x": 1}], "steps[0].y", "both x and y"),
        ([{"kind": "wheel", "deltaY": 3, "ms": 1}], "steps[0].ms", "not wheel"),
        ([{"kind": "move", "x": 1, "y": 1}, {"kind": "move", "x": 1, "y": 1, "button": "left"}],
         "steps[1].button", "unknown key 'button'"),
        ([{"kind": "down", "x": 1, "y": 1, "pointerId": "a"}], "steps[0].pointerId", "number"),
    ],
)
def test_bad_steps_name_the_field(steps: object, field: str, words: str) -> None:
    err = _refused(steps)
    assert err.code == "bad-arg" and err.details["field"] == field and words in err.message, err.message


def test_several_pointer_ids_warn_that_one_mouse_carries_them() -> None:
    plan = plan_steps([{"kind": "down", "x": 1, "y": 1, "pointerId": 1},
                       {"kind": "down", "x": 2, "y": 2, "pointerId": 2}])
    assert "2 pointerIds" in plan.warnings[0] and "single mouse" in plan.warnings[0]


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                 max_size=4),
                     max_leaves=12)
_step = st.fixed_dictionaries({"kind": st.sampled_from(["down", "up", "move", "wait", "wheel", "x"])},
                              optional={k: _json | st.floats(-1e4, 1e4)
                                        for k in ("x", "y", "deltaX", "deltaY", "ms", "pointerId")})


@given(st.lists(_step, max_size=6) | _json)
def test_planning_only_ever_refuses_with_a_code(steps: object) -> None:
    try:
        plan = plan_steps(steps)
    except ToolError as err:
        assert err.code in ("bad-arg", "too-many-steps")
        return
    for step in plan.steps:
        assert step.ms <= MAX_WAIT_MS and (step.kind != "move" or step.ms == 0 or step.ms >= MIN_MOVE_MS)


async def test_refusals_happen_before_any_session_opens(tmp_path: Path) -> None:
    config = RuntimeConfig.from_env({}, workspace=tmp_path, capabilities="canvas")
    async with open_runtime(config=config, capabilities=["canvas"]) as runtime:
        bad = await runtime.call_tool("gesture_chain", {"steps": [{"kind": "wheel"}]})
        assert bad["ok"] is False and bad["code"] == "bad-arg" and bad["field"] == "steps[0].deltaY"
        many = await runtime.call_tool("gesture_chain", {"steps": [{"kind": "wait", "ms": 1}] * 250})
        assert many["code"] == "too-many-steps"
        typed = await runtime.call_tool("gesture_chain", {"steps": [1]})
        assert typed["code"] == "bad-arg" and typed["field"] == "steps[0]"
        assert await runtime.session_ids() == []
