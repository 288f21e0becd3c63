"""`wfx executions logs` of a huge step log, as a real process: its peak memory (VmHWM in /proc)
grows with the page it prints, not with the log it reads through."""

from __future__ import annotations

import pytest

from tests.e2e.cli import Wfx, peak_kib

pytestmark = pytest.mark.xdist_group("e2e-cli-logs-scale")

LINE = "x" * 84  # lines of 100 bytes, as in docs/performance.md
SMALL_LINES, LARGE_LINES = 1_000, 200_000  # 100 KB against 20 MB
# read whole, 20 MB of log cost ~3x its size (the text, its redacted copy, its lines); a page
# streamed through costs a piece (256 K characters) and the page
MOST_GROWTH_KIB = 12 * 1024
KEY_BODY = ("MIIEowIBAAKCAQEA" * 4, "q83vEjQ4d5pT0z" * 4)


def _run_with_log(wfx: Wfx, lines: int) -> tuple[str, str]:
    """A run whose one step log is `lines` lines long with a key block in its middle (written
    as a registered file could be: not redacted), and the step log's logId."""
    execution_id = wfx.run_id("demo/big")
    (log,) = (wfx.home / "logs" / execution_id).glob("*.log")
    middle = lines // 2
    with open(log, "w", encoding="utf-8") as file:
        for number in range(lines):
            if number == middle:
                file.write("-----BEGIN RSA PRIVATE KEY-----\n")
                file.write("".join(f"{body}\n" for body in KEY_BODY))
                file.write("-----END RSA PRIVATE KEY-----\n")
            file.write(f"line {number:09d} {LINE}\n")
    details = wfx.json("executions", "show", execution_id)
    return execution_id, details["pipelines"][0]["availableLogs"][0]["logId"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Wfx, str, str, int]]:
    """A run with a small step log and one with a large: their wfx, run id, logId and lines."""
    wfx = Wfx(tmp_path_factory.mktemp("logs"))
    wfx.publish_command_step("big", "print('hello')")
    return [(wfx, *_run_with_log(wfx, lines), lines) for lines in (SMALL_LINES, LARGE_LINES)]


@pytest.mark.parametrize("view", ["summary", "full", "deep page"])
def test_a_view_of_a_huge_log_holds_its_page_not_the_log(
    runs: list[tuple[Wfx, str, str, int]], view: str
) -> None:
    peaks, outputs = [], []
    for wfx, execution_id, log_id, lines in runs:
        args = {
            "summary": (),
            "full": ("--full", "--limit", "10"),
            # a page that starts inside the key block: its body is never shown
            "deep page": (
                "--log-id",
                log_id,
                "--limit",
                "100",
                "--next-token",
                str(lines // 2 + 1),
            ),
        }[view]
        peak, stdout = peak_kib(wfx, "executions", "logs", execution_id, *args)
        peaks.append(peak)
        outputs.append(stdout)

    assert peaks[1] - peaks[0] < MOST_GROWTH_KIB, peaks
    large = outputs[1]
    assert not any(body in large for body in KEY_BODY)
    if view == "summary":  # the last lines, and where the rest are read
        assert f"line {LARGE_LINES - 1:09d}" in large
        assert f"… {LARGE_LINES + 3 - 100} earlier lines: wfx executions logs" in large, large[:300]
    elif view == "deep page":
        assert large.splitlines()[0] == "[REDACTED]" and len(large.splitlines()) == 100
