"""``planshape serve --ray``: Ray Serve replicas on a local Ray instance (CPU only) that ask for the custom
resource, answer the same wire formats behind Ray's proxy, and score exactly as the in-process facade. Runs in
.venv-ray (``bash scripts/test.sh ray``)."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time

import pytest

ray = pytest.importorskip("ray", reason="the Ray Serve suite runs in .venv-ray (bash scripts/test.sh ray)")
serve = pytest.importorskip("ray.serve")

from planshape.shaping.serve.auth import Guard  # noqa: E402
from planshape.shaping.serve.limits import Limits  # noqa: E402
from planshape.shaping.serve.ray_deployment import deploy  # noqa: E402

from tests.serve.server import free_port, get, nemo_response, nemo_row, post, slime_payload  # noqa: E402

RESOURCE = "planshape_cpu"


@pytest.fixture(scope="module")
def cluster():
    """A local Ray instance whose one node offers 2 planshape_cpu (as a CPU node group would), and the port
    Serve's proxy will take (the first deployment fixes it for the instance)."""
    os.environ.setdefault("RAY_raylet_start_wait_time_s", "300")  # a loaded 2-core CI machine starts slowly
    context = ray.init(num_cpus=2, resources={RESOURCE: 2}, include_dashboard=False,
                       object_store_memory=100 * 2**20, log_to_driver=False)
    yield context.address_info["gcs_address"], free_port()
    serve.shutdown()
    ray.shutdown()


def test_the_command_line_deploys_on_a_running_cluster(cluster, gold, shaper, tmp_path):
    """``planshape serve --ray`` joins the cluster at --ray-address, deploys, and serves until stopped."""
    address, port = cluster
    config = tmp_path / "planshape.json"
    config.write_text(json.dumps(gold.config))
    log = (tmp_path / "serve.log").open("wb")
    command = subprocess.Popen([sys.executable, "-m", "planshape.shaping.cli", "serve", "--config", str(config),
                                "--ray", "--replicas", "1", "--ray-address", address, "--port", str(port), "--step",
                                "0"], stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait(f"http://127.0.0.1:{port}")
        reply = post(f"http://127.0.0.1:{port}/get_reward", {"query": [gold.query(0)], "prompts": [gold.prompts[0]],
                                                             "labels": [gold.labels[0]]})[1]
        assert reply["rewards"] == [shaper.max_reward(0)]
        assert command.poll() is None  # it blocks, serving, until stopped
    finally:
        command.terminate()
        command.wait(60)
        log.close()
    serve.delete("planshape")


def _wait(url: str, timeout_s: float = 180) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if get(url + "/health")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError("the Ray Serve app did not answer /health")


def test_replicas_on_the_custom_resource_score_as_the_facade(cluster, gold, shaper):
    token = secrets.token_urlsafe(24)
    _, port = cluster
    deploy(gold.config, Guard(token), Limits(), 0, 2, {RESOURCE: 1}, "127.0.0.1", port, ray_address=None)
    url = f"http://127.0.0.1:{port}"
    _wait(url)
    handle = serve.get_app_handle("planshape")
    seen = {}
    for _ in range(40):  # requests spread over the replicas: each says what Ray assigned it
        where = handle.placement.remote().result()
        seen[where["replica"]] = where["resources"]
        if len(seen) == 2:
            break
    assert len(seen) == 2 and all(r.get(RESOURCE) == 1.0 for r in seen.values()), seen
    assert ray.available_resources().get(RESOURCE, 0.0) == 0.0  # both units held by the replicas

    body = {"query": [gold.query(i) for i in range(45)], "prompts": gold.prompts, "labels": gold.labels}
    assert post(url + "/get_reward", body)[0] == 401  # the guard holds behind Ray's proxy too
    status, reply = post(url + f"/t/{token}/get_reward", body)
    expected = shaper.score_batch([gold.answers[i] + "<|im_end|>" for i in range(45)], gold.labels, 0)
    assert status == 200 and reply["rewards"] == [s.reward for s in expected] == [shaper.max_reward(0)] * 45
    assert reply["extra_logs"] == shaper.metric_columns(expected)
    for i in range(0, 45, 5):  # slime and NeMo Gym, one sample per request, spread over the replicas
        status, one = post(url + f"/reward?token={token}", slime_payload(gold.prompts[i], gold.answers[i],
                                                                         gold.labels[i]))
        assert status == 200 and one["reward"] == expected[i].reward and one["components"] == expected[i].components
        row = nemo_row(gold.records[i], gold.messages[i], i)
        status, verified = post(url + "/verify", {**row, "response": nemo_response(gold.answers[i])},
                                {"Authorization": f"Bearer {token}"})
        assert status == 200 and verified["reward"] == expected[i].reward
        assert verified["responses_create_params"] == row["responses_create_params"]
    status, bad = post(url + f"/t/{token}/get_reward", {"query": ["x"], "prompts": []})
    assert status == 400 and "labels" in bad["error"]
