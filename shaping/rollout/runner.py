"""Run every (query, sample) trajectory not yet in the run directory, ``concurrency`` at a time.

Each finished trajectory is scored by the same ``Shaper`` as training (reward, success, failure reason, the
13 verdicts, the reward-hacking monitor) and appended to ``results.jsonl`` at once, so a killed run loses only
the trajectories in flight. Tool calls and scoring run on the event loop's thread: both take well under a
millisecond here, and scoring's time budget needs the main thread.
"""

from __future__ import annotations

import asyncio
from typing import Any

from planshape.shaping import Shaper
from planshape.shaping.components import NO_ANSWER
from planshape.validators.travelplanner.agent.loop import turn_cap_reason
from planshape.validators.travelplanner.query import Query

from .agent import ERROR, MAX_TURNS, Trajectory, play
from .client import ChatClient
from .inputs import Inputs
from .progress import LiveProgress
from .run_dir import Key, RunDir
from .settings import RolloutSettings


def submitted_plan(answer: str | None, shaper: Shaper) -> tuple[list[dict[str, Any]] | None, str]:
    """The upstream plan the submission file carries for a final answer (read as the reward reads it), or None
    and why (not delivered)."""
    if answer is None:
        return None, "no final answer"
    try:
        reading = shaper.scorer.read(answer)
    except Exception as exc:  # noqa: BLE001 - a plugin's extractor failing on model text is a failed plan
        return None, f"answer extraction failed ({type(exc).__name__})"
    if reading.plan is not None:
        return reading.plan, ""
    return None, ("no answer block in the final reply" if reading.failure == NO_ANSWER
                  else f"{reading.failure}: {reading.reason}")


def result_record(key: Key, record: dict[str, Any], query: Query | None, done: Trajectory,
                  shaper: Shaper, max_turns: int | None = None) -> dict[str, Any]:
    """One trajectory's line of ``results.jsonl`` (an episode the turn cap ended unanswered says so, as in every
    standard)."""
    plan, note = submitted_plan(done.answer, shaper)
    score = None
    if query is not None:
        s = shaper.score(done.answer or "", query, 0)
        if done.status == MAX_TURNS and s.failure == NO_ANSWER and max_turns is not None:
            s = shaper.unscored(0, NO_ANSWER, turn_cap_reason(max_turns), query)
        score = {"reward": s.reward, "success": s.success, "failure": s.failure, "reason": s.reason,
                 "components": s.components, "verdicts": s.verdicts, "official_pass": s.official_pass,
                 "exploit": s.exploit}
    return {"idx": key[0], "sample": key[1], "query": record["query"], "status": done.status, "error": done.error,
            "turns": done.turns, "tool_calls": done.tool_calls, "prompt_tokens": done.prompt_tokens,
            "completion_tokens": done.completion_tokens, "answer": done.answer, "plan": plan, "plan_note": note,
            "score": score, "transcript": done.transcript}


async def roll_out(inputs: Inputs, shaper: Shaper, settings: RolloutSettings, run_dir: RunDir, run: dict[str, Any],
                   progress: LiveProgress | None = None, retry_failed: bool = False) -> list[dict[str, Any]]:
    """Every trajectory's record, in (query, sample) order, after running the missing ones.

    ``run`` is what decides the results (``run.json``): a directory holding another run is refused before any
    request, and ``run.json`` is written only once the endpoint has passed its start-up check, so a start that
    fails leaves the directory free for the corrected command."""
    run_dir.check(run)
    finished = run_dir.finished()
    if retry_failed:
        finished = {k: r for k, r in finished.items() if r["status"] != ERROR}
    todo: asyncio.Queue[Key] = asyncio.Queue()
    for key in ((i, k) for i in range(len(inputs.records)) for k in range(settings.samples)):
        if key not in finished:
            todo.put_nowait(key)
    native = settings.tool_format == "native"
    tools, schemas = shaper.tools(), (shaper.tool_schemas if native else None)
    prompts = [shaper.messages(r, include_tools=not native) for r in inputs.records]

    async def worker(client: ChatClient) -> None:
        while not todo.empty():
            key = todo.get_nowait()
            done = await play(prompts[key[0]], client, tools, schemas, settings.max_turns,
                              settings.max_calls_per_turn)
            query = inputs.queries[key[0]] if inputs.queries is not None else None
            record = result_record(key, inputs.records[key[0]], query, done, shaper, settings.max_turns)
            run_dir.append(record)
            finished[key] = record
            if progress is not None:
                progress.done(record)

    if todo.empty():  # a finished run: nothing to ask the endpoint
        return [finished[k] for k in sorted(finished)]
    async with ChatClient(settings) as client:
        await client.check(schemas)
        run_dir.prepare(run)
        await asyncio.gather(*(worker(client) for _ in range(min(settings.concurrency, todo.qsize()))))
    return [finished[k] for k in sorted(finished)]
