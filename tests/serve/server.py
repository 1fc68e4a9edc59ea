"""A real ``planshape serve`` process on 127.0.0.1 for the tests, and the requests the trainers send to it.

The payloads are what each trainer's client builds (read from each client's source; docs/serve.md):
OpenRLHF's ``SingleTurnAgentExecutor._fetch_rewards_via_http`` (0.11.0 and 0.11.2), slime's ``remote_rm`` and
NeMo Gym's ``SimpleAgent.run``; none of them sends a header beyond JSON.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from planshape.shaping.facade import query_json

QWEN_EOS = "<|im_end|>"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``planshape serve --config CONFIG ARGS...`` in a subprocess; ``url`` once /health answers."""

    def __init__(self, config: dict[str, Any], folder: Path, *args: str, env: dict[str, str] | None = None,
                 host: str = "127.0.0.1", wait: bool = True):
        folder.mkdir(parents=True, exist_ok=True)
        self.config_path = folder / "planshape.json"
        self.config_path.write_text(json.dumps(config))
        self.port = free_port()
        self.log_path = folder / "server.log"
        self.url = f"http://{host if host not in ('0.0.0.0', '::') else '127.0.0.1'}:{self.port}"
        command = [sys.executable, "-m", "planshape.shaping.cli", "serve", "--config", str(self.config_path),
                   "--port", str(self.port), *args]
        if host != "127.0.0.1":
            command += ["--host", host]
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT,
                                        env={**os.environ, **(env or {})})
        if wait:
            self.wait_ready()

    def wait_ready(self, timeout_s: float = 120.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited ({self.process.returncode}): {self.log()}")
            try:
                if get(self.url + "/health")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the server did not answer /health in {timeout_s} s: {self.log()}")

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def worker_pids(self) -> list[int]:
        """The scoring processes: the server's children started by multiprocessing's spawn."""
        pids = []
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for pid in children:
                try:
                    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                except OSError:
                    continue
                if b"spawn_main" in cmdline and b"resource_tracker" not in cmdline:
                    pids.append(int(pid))
        return pids

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


def with_token(config: dict[str, Any], folder: Path, *args: str) -> tuple[Server, str]:
    """A server that wants a token (a fresh one, in a 0600 file in ``folder``), and the file's path."""
    folder.mkdir(parents=True, exist_ok=True)
    token = folder / "token"
    token.write_text(secrets.token_urlsafe(24))
    os.chmod(token, 0o600)
    return Server(config, folder, "--workers", "1", "--token-file", str(token), *args), str(token)


def request(url: str, body: bytes | None = None, method: str = "POST", headers: dict[str, str] | None = None,
            timeout: float = 120.0) -> tuple[int, Any]:
    """(status, the reply's JSON, or its text when it is not JSON)."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as reply:
            status, raw = reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode(errors="replace")


def post(url: str, payload: Any, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """A JSON POST as aiohttp's ``session.post(url, json=payload)`` sends it."""
    return request(url, json.dumps(payload).encode(), headers={"Content-Type": "application/json", **(headers or {})})


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    return request(url, method="GET", headers=headers, timeout=10)


def chat_prompt(messages: list[dict[str, str]]) -> str:
    """A Qwen chat template applied to the prompt (OpenRLHF's ``--data.apply_chat_template``)."""
    turns = "".join(f"<|im_start|>{m['role']}\n{m['content']}{QWEN_EOS}\n" for m in messages)
    return turns + "<|im_start|>assistant\n"


def openrlhf_payloads(query: str, prompt: str, label: Any, servers: int, release: str) -> list[dict[str, Any]]:
    """What OpenRLHF posts for one sample to ``servers`` comma-separated URLs: 0.11.0 shards ``ceil(1/servers)``
    per URL, so every URL but the first gets empty lists; 0.11.2 stops at the first empty shard (and rotates)."""
    size = 1
    out = []
    for i in range(servers):
        shard = slice(i * size, (i + 1) * size)
        if release == "0.11.2" and i * size >= 1:
            break
        out.append({"query": [query][shard], "prompts": [prompt][shard], "labels": [label][shard]})
    return out


def slime_payload(prompt: Any, response: str, label: Any) -> dict[str, Any]:
    """slime's ``remote_rm``: the sample's prompt (text after the chat template, or messages), the generated text,
    and the label column as read."""
    return {"prompt": prompt, "response": response, "label": label}


def nemo_response(text: str | None, tool_call_last: bool = False) -> dict[str, Any]:
    """A Responses object as NeMo Gym's simple agent sends it: a tool call and its output, then the final
    assistant message (``text`` None: no message at all)."""
    output: list[dict[str, Any]] = [
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_cities",
         "arguments": '{"state": "Texas"}', "status": "completed"},
        {"type": "function_call_output", "call_id": "call_1", "output": "Austin\nDallas"},
    ]
    if text is not None:
        output.append({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
    if tool_call_last:
        output.append({"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "calculator",
                       "arguments": '{"expression": "1+1"}', "status": "completed"})
    return {"id": "resp_1", "created_at": 1767225600.0, "model": "planner-r1-8b", "object": "response",
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "status": "completed"}


def nemo_row(record: dict[str, Any], messages: list[dict[str, str]], index: int) -> dict[str, Any]:
    """A NeMo Gym dataset row for a TravelPlanner query: the query's fields flat beside
    ``responses_create_params`` and ``agent_ref``, with the rollout indices the collection adds."""

    return {"responses_create_params": {"input": messages, "tools": [], "temperature": 1.0},
            **json.loads(query_json(record)),
            "agent_ref": {"type": "responses_api_agents", "name": "planshape_travelplanner_agent"},
            "_ng_task_index": index, "_ng_rollout_index": 0}
