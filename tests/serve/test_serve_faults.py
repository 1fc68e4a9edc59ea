"""The server never loses a sample: scoring workers killed with SIGKILL under load (busy or idle), samples that
sleep, spin or kill their process: every request is answered, each sample exactly once and in order, the
others score as in process, and the server serves correct scores afterwards."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
import threading
import time

import aiohttp
import pytest

from tests.adapter_fuzz import model_text
from tests.serve.server import Server, get, post
from tests.stall_probe import sample_rows, with_word

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the fault tests use Linux signals and /proc")


async def _fire(url: str, payloads: list[dict]) -> list[tuple[int, dict]]:
    """Every payload at once, each its own request (as OpenRLHF's rollout actors send them)."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                     timeout=aiohttp.ClientTimeout(total=300)) as session:
        async def one(payload):
            async with session.post(url, json=payload) as reply:
                return reply.status, await reply.json()

        return await asyncio.gather(*(one(p) for p in payloads))


def test_workers_killed_under_load_lose_no_request(gold, shaper, tmp_path):
    """120 requests of 1 to 6 samples each (gold and fuzzed answers, distinct per position) in flight while
    worker processes are SIGKILLed four times: every request gets one result per sample, in order, each the
    facade's score or ``crash`` naming the signal; no more crashes than kills; then everything scores right."""
    srv = Server(gold.config, tmp_path / "srv", "--workers", "2", "--step", "0")
    try:
        rng = random.Random(7)
        payloads, expected_texts, expected_labels = [], [], []
        for _ in range(120):
            size = rng.randint(1, 6)
            picks = [rng.randrange(45) for _ in range(size)]
            texts = [gold.answers[i] if rng.random() < 0.6 else model_text(rng, gold.answers[i]) for i in picks]
            texts = [t[:50_000] for t in texts]
            payloads.append({"query": [gold.prompts[i] + t for i, t in zip(picks, texts, strict=True)],
                             "prompts": [gold.prompts[i] for i in picks], "labels": [gold.labels[i] for i in picks]})
            expected_texts.append(texts)
            expected_labels.append([gold.labels[i] for i in picks])
        kills: list[int] = []
        stop = threading.Event()

        def killer() -> None:
            time.sleep(0.3)
            while not stop.is_set() and len(kills) < 4:
                pids = srv.worker_pids()
                if pids:
                    pid = rng.choice(pids)
                    try:
                        os.kill(pid, signal.SIGKILL)
                        kills.append(pid)
                    except ProcessLookupError:
                        pass
                stop.wait(0.4)

        thread = threading.Thread(target=killer)
        thread.start()
        replies = asyncio.run(_fire(srv.url + "/get_reward", payloads))
        stop.set()
        thread.join()
        assert kills and all(status == 200 for status, _ in replies)
        crashed = 0
        for (_, reply), texts, labels in zip(replies, expected_texts, expected_labels, strict=True):
            assert len(reply["rewards"]) == len(texts)  # one result per sample: none lost, none twice
            for name in reply["extra_logs"]:
                assert len(reply["extra_logs"][name]) == len(texts)
            scores = shaper.score_batch(texts, labels, 0)
            for k, score in enumerate(scores):
                if reply["extra_logs"]["planshape/failure/crash"][k] == 1.0:
                    crashed += 1
                    assert reply["rewards"][k] == 0.0
                else:
                    assert reply["rewards"][k] == score.reward
                    assert reply["extra_logs"]["planshape/failure/" + (score.failure or "pass")][k] == 1.0
        assert crashed <= len(kills)
        health = get(srv.url + "/health")[1]
        assert health["status"] == "ok" and health["worker_restarts"] >= 1
        after = post(srv.url + "/get_reward", {"query": [gold.query(i) for i in range(45)],
                                               "prompts": gold.prompts, "labels": gold.labels})[1]
        assert after["rewards"] == [shaper.max_reward(0)] * 45
        print(f"kills {len(kills)}, samples crashed {crashed}, restarts {health['worker_restarts']}, "
              f"samples {sum(len(t) for t in expected_texts)}")
    finally:
        srv.stop()


@pytest.mark.usefixtures("stall_plugin")
def test_samples_that_sleep_spin_or_die_cost_only_themselves(tmp_path):
    """The stall probe plugin in the server's workers: within one request, a sleeping, a spinning and a hanging
    sample (one no signal reaches) get ``timeout`` at the budget, a sample that kills its process gets ``crash``;
    the rest are scored. The request's 8 samples go to the 2 workers in two runs (0-3, 4-7): in its run the sleep
    is stopped in its worker, the hang only by a kill past the run's budget and the death kills its run, and those
    two runs are scored again one sample a job, where the hang, the sleep, the death and the spin each cost one
    process. Every sample reaches the verdict log once, the ones whose reply the front built included."""
    folder = tmp_path / "plugin"  # where the stall_plugin fixture installed it for this process
    rows = sample_rows()
    labels = [r["query"] for r in rows]
    words = {1: "SLEEP", 2: "HANG", 4: "DIE", 5: "SPIN"}
    for i, word in words.items():
        labels[i] = with_word(rows[i], word)["query"]
    config = {"database": "sample", "estimator": "grpo", "sample_budget_s": 2.0, "total_steps": 10,
              "log_dir": str(tmp_path / "verdicts")}
    env = {"PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])}
    srv = Server(config, tmp_path / "srv", "--workers", "2", env=env)
    expected_failures = []
    try:
        start = time.monotonic()
        status, reply = post(srv.url + "/get_reward", {"query": [r["text"] for r in rows],
                                                       "prompts": [""] * len(rows), "labels": labels})
        took = time.monotonic() - start
        assert status == 200 and len(reply["rewards"]) == len(rows)
        logs = reply["extra_logs"]
        assert logs["planshape/failure/timeout"][1] == logs["planshape/failure/timeout"][2] == 1.0
        assert logs["planshape/failure/timeout"][5] == 1.0
        assert logs["planshape/failure/crash"][4] == 1.0
        assert took < 45, took  # the budget (2 s) stopped the 60 s sleep and the endless spin
        from planshape.shaping import Shaper

        plain = Shaper.from_mapping({**config, "log_dir": None})
        for i, row in enumerate(rows):
            if i not in words:
                score = plain.score(row["text"], row["query"], 0)
                assert reply["rewards"][i] == score.reward
                expected_failures.append(score.failure or "pass")
        expected_failures += ["timeout", "timeout", "crash", "timeout"]
        again = post(srv.url + "/get_reward", {"query": [rows[0]["text"]], "prompts": [""],
                                               "labels": [rows[0]["query"]]})
        assert again[1]["rewards"] == [plain.score(rows[0]["text"], rows[0]["query"], 0).reward]
        expected_failures.append(expected_failures[0])
        assert get(srv.url + "/health")[1]["worker_restarts"] == 6  # run 0-3, run 4-7, then 1, 2, 4, 5 alone
    finally:
        srv.stop()
    from planshape.shaping.observe.verdict_log import read_log

    headers, records, skipped = read_log(tmp_path / "verdicts")
    assert skipped == 0 and len(headers) >= 3  # the front and the scoring processes, each a file
    from collections import Counter

    assert Counter(r["failure"] for r in records) == Counter(expected_failures), [
        (h.get("pid"), h.get("describe", {}).get("workers")) for h in headers]
