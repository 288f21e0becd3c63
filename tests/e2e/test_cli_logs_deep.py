"""`wfx executions logs` deep into a big step log and `--follow` of a growing one, as real
processes: a page's token says where the next page may resume, so neither reads from the log's
start again (the bytes a follower reads, from /proc, grow with the log, not with its polls)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from domain.redaction import redact
from tests.e2e.cli import Wfx, assert_bad_input

pytestmark = pytest.mark.xdist_group("e2e-cli-logs-deep")

LINES = 250_000  # of 100 bytes: 25 MB
BLOCK_AT = 150_050
KEY_BODY = ("MIIEowIBAAKCAQEA" * 4, "q83vEjQ4d5pT0z" * 4)
READ_BYTES = 16 * 1024  # the reader's read: a restart point is at most this before a page


def _line(number: int) -> str:
    return f"line {number:09d} {'x' * 84}"


def _block() -> list[str]:
    return ["-----BEGIN RSA PRIVATE KEY-----", *KEY_BODY, "-----END RSA PRIVATE KEY-----"]


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Wfx, str, str, list[str]]:
    """A run whose step log is 25 MB with a key block (not redacted, as a registered file
    could be), its logId, and the log's lines as redact() gives them."""
    wfx = Wfx(tmp_path_factory.mktemp("deep"))
    wfx.publish_command_step("big", "print('hello')")
    execution_id = wfx.run_id("demo/big")
    (log,) = (wfx.home / "logs" / execution_id).glob("*.log")
    lines = [_line(number) for number in range(LINES)]
    lines[BLOCK_AT:BLOCK_AT] = _block()
    log.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    # the lines around the block as redact() makes them; the others are plain
    around = slice(BLOCK_AT - 10, BLOCK_AT + 14)
    expected = lines[: around.start] + redact("\n".join(lines[around])).splitlines()
    expected += lines[around.stop :]
    log_id = wfx.json("executions", "show", execution_id)["pipelines"][0]["availableLogs"][0]
    return wfx, execution_id, log_id["logId"], expected


def _page(wfx: Wfx, execution_id: str, log_id: str, token: str) -> tuple[list[str], str]:
    outcome = wfx(
        "executions", "logs", execution_id, "--log-id", log_id, "--limit", "100",
        "--next-token", token,
    )  # fmt: skip
    assert outcome.code == 0, str(outcome)
    (hint,) = [line for line in outcome.stderr_lines if line.startswith("Next page:")]
    return outcome.stdout.splitlines(), hint.rsplit(" ", 1)[1]


def test_a_deep_page_gives_a_token_the_next_page_resumes_from(
    big: tuple[Wfx, str, str, list[str]],
) -> None:
    wfx, execution_id, log_id, expected = big
    # a line number (as tokens were): read from the start, once
    first, token = _page(wfx, execution_id, log_id, str(BLOCK_AT - 30))
    assert first == expected[BLOCK_AT - 30 : BLOCK_AT + 70]
    second, after = _page(wfx, execution_id, log_id, token)
    third, _ = _page(wfx, execution_id, log_id, after)

    assert second + third == expected[BLOCK_AT + 70 : BLOCK_AT + 270]
    shown = "\n".join(first + second + third)
    assert "[REDACTED]" in shown and not any(body in shown for body in KEY_BODY)
    # where each token resumes: a restart point at most a piece before its page, not the start
    for given, page_start in ((token, BLOCK_AT + 70), (after, BLOCK_AT + 170)):
        line, restart_line, _, offset = map(int, given.split(".")[:4])
        assert line == page_start and page_start - restart_line <= READ_BYTES // 100 + 1
        assert 100 * page_start - READ_BYTES - 100 <= offset <= 100 * page_start + 200


def test_a_token_altered_to_resume_inside_the_key_block_is_refused(
    big: tuple[Wfx, str, str, list[str]],
) -> None:
    wfx, execution_id, log_id, _ = big
    _, token = _page(wfx, execution_id, log_id, str(BLOCK_AT - 30))
    fields = token.split(".")
    fields[1], fields[3] = str(BLOCK_AT + 1), str(100 * BLOCK_AT + 32)  # the body's first line
    for forged in (".".join(fields), token + "0", "12.x"):
        outcome = wfx(
            "executions", "logs", execution_id, "--log-id", log_id, "--next-token", forged
        )
        assert_bad_input(outcome, "--next-token")
        assert not any(body in outcome.stderr for body in KEY_BODY)


# Prints BURSTS bursts of lines (a piece and more each), then waits for GO before the last line.
_CHATTY = (
    "import os, time\n"
    "deadline = time.time() + 60  # a failed test never makes GO: the step ends anyway\n"
    "for burst in range({bursts}):\n"
    "    for number in range({per_burst}):\n"
    "        print(f'burst {{burst}} line {{number:06d}} ' + 'y' * 80)\n"
    "    print(flush=True, end='')\n"
    "    time.sleep(0.2)\n"
    "while not os.path.exists({go!r}) and time.time() < deadline:\n"
    "    time.sleep(0.05)\n"
    "print('the end', flush=True)\n"
)
BURSTS, PER_BURST = 6, 4_000  # 6 x 400 KB


def _read_bytes(pid: int) -> int:
    """The bytes the process has read so far (rchar: files, pipes and sockets alike)."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar")


def test_a_follower_of_a_growing_log_reads_it_about_once(wfx: Wfx) -> None:
    go = wfx.home / "GO"
    code = _CHATTY.format(bursts=BURSTS, per_burst=PER_BURST, go=str(go))
    wfx.publish_command_step("chatty", code)
    execution_id = wfx.run_id("demo/chatty", "--no-wait")
    follower = wfx.start("executions", "logs", execution_id, "--follow", "--limit", "1000")
    last = f"burst {BURSTS - 1} line {PER_BURST - 1:06d}"
    printed: list[str] = []
    try:
        assert follower.stdout is not None
        for line in follower.stdout:
            printed.append(line.rstrip("\n"))
            if printed[-1].startswith("burst 0 line") and len(printed) < 3:
                started = _read_bytes(follower.pid)  # its imports and first reads
            if printed[-1].startswith(last):
                break
        time.sleep(2)  # polls of a log that no longer grows
        read = _read_bytes(follower.pid) - started
        (log,) = (wfx.home / "logs" / execution_id).glob("*.log")
        size = log.stat().st_size
        go.touch()
        rest, _ = follower.communicate(timeout=60)
    finally:
        if follower.poll() is None:
            follower.kill()
    printed += rest.splitlines()

    assert follower.returncode == 0
    steps = [line for line in printed if line.startswith(("burst", "the end"))]
    expected = [
        f"burst {burst} line {number:06d} " + "y" * 80
        for burst in range(BURSTS)
        for number in range(PER_BURST)
    ]
    assert steps == [*expected, "the end"]
    # resumed, the log about once (0.8 of it after the first lines); read from the start on every
    # poll, as before, over twice it (each poll after the last burst alone reads it whole)
    assert read < 1.6 * size, (read, size)
