"""The front and its scoring processes keep freed memory for the next large request (``serve.heap``): a batch
body read in chunks, joined and copied into a job costs page faults on every request under glibc's defaults and
none once the thresholds are set. Each run is a process of its own, since the setting is per process."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="glibc's allocator")

REQUESTS = """
import resource, sys
from planshape.shaping.serve.heap import keep_heap
kept = keep_heap() if sys.argv[1] == "keep" else None

def request(i):  # a 1 MiB batch body in 4 chunks, joined, copied into a job; all freed once answered
    chunks = [bytes([i % 256]) * (256 << 10) for _ in range(4)]
    body = b"".join(chunks)
    return len(body + b"!")

for i in range(3):
    request(i)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for i in range(100):
    request(i)
print(kept, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def faults(mode: str) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", REQUESTS, mode], capture_output=True, text=True, timeout=120,
                         check=True).stdout.split()
    return out[0], int(out[1])


def test_large_requests_stop_faulting_pages_once_the_heap_is_kept():
    kept, with_thresholds = faults("keep")
    if kept != "True":
        pytest.skip("not glibc: keep_heap changes nothing here")
    _, by_default = faults("plain")
    assert by_default > 100 * 256  # a fresh mapping per large block: at least a 1 MiB body's pages a request
    assert with_thresholds < 100  # the heap's memory reused: next to none
