"""An output file through a real `wfx serve`'s viewer, as a browser fetches a preview or a
download: its body is streamed from the object store, so a step's huge file cannot make the
service hold it in memory (checked with the process's own peak, VmHWM in /proc)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.e2e.cli import USER, Wfx
from tests.e2e.served import serving

pytestmark = [pytest.mark.integration]

SIZE = 96 << 20
TIMEOUT = 30.0


def _peak_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    (kib,) = re.findall(r"^VmHWM:\s+(\d+) kB$", status, re.M)
    return int(kib)


def test_a_huge_output_file_is_streamed_not_held_in_memory(wfx: Wfx) -> None:
    wfx.publish_command_step(
        "huge",
        "import os\n"
        "with open(os.path.join(os.environ['WFX_OUTPUT_DIR'], 'huge.png'), 'wb') as out:\n"
        f"    out.truncate({SIZE})\n",
    )
    run = wfx.run_id("demo/huge")
    token = wfx.ok("auth", "token", USER, "--role", "admin", "--ttl", "10m").stdout.strip()
    # one process: the one whose memory is read
    with (
        serving(wfx, "--workers", "1", cold=True) as (base, service),
        httpx.Client(base_url=base, timeout=TIMEOUT) as client,
    ):
        assert client.get("/login", params={"token": token}).status_code == 303
        page = client.get(f"/executions/{run}")
        assert page.status_code == 200, page.text
        (preview,) = re.findall(r'<img class="preview" src="([^"]+)"', page.text)
        before = _peak_kib(service.pid)
        received = 0
        with client.stream("GET", preview) as answer:
            assert answer.status_code == 200
            assert answer.headers["content-type"] == "image/png"
            for chunk in answer.iter_bytes():
                received += len(chunk)
        assert received == SIZE
        grown = _peak_kib(service.pid) - before
        assert grown < (SIZE >> 10) // 4, f"the service's peak grew by {grown} KiB"
