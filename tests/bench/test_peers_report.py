"""`make bench-peers` reports what it measured: keys, ratios, the docs table between its markers.

Recorded samples stand in for the peers, so nothing is installed and no timing is asserted.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tests.bench import peer_worker, peers_report, tree_rss

MACHINE = {
    "date": "2026-12-01T21:00:00Z",
    "cpus": 2,
    "python": "3.11.7",
    "sqlite": "3.40.1",
    "load_average_at_start": [3.0, 3.2, 3.5],
}
WARM = {
    "wfx": [0.002, 0.003, 0.004],
    "raw_sqlite3": [0.0002, 0.0003, 0.0004],
    "prefect": [1.1, 1.2, 1.3],
    "prefect_no_heartbeat": [0.15, 0.2, 0.25],
    "dagster": [0.3, 0.3, 0.3],
}


def _cold(median: float) -> dict[str, Any]:
    return {"median_s": median, "min_s": median / 2, "max_s": median * 2, "runs": 5}


def _results() -> dict[str, Any]:
    cold_run = {"python": _cold(0.02), "wfx": _cold(0.5), "prefect": _cold(10.0)}
    cold_run["dagster"] = _cold(3.0)
    cold_list = {"wfx": _cold(0.4), "prefect": _cold(8.0), "dagster": _cold(2.0)}
    rss = {
        "wfx_run": {"tree_peak_mib": 50.0, "largest_process_mib": 50.0},
        "prefect_run": {"tree_peak_mib": 400.0, "largest_process_mib": 250.0},
    }
    versions = {"wfx": "0.1.0", "prefect": "3.9.1", "dagster": "1.13.29"}
    return peers_report.build(MACHINE, versions, WARM, cold_run, cold_list, rss, {})


def test_the_results_carry_every_figure_and_the_peer_over_wfx_ratios() -> None:
    results = _results()

    assert results["warm_ms"]["wfx"] == {
        "median_ms": 3.0,
        "p10_ms": 2.0,
        "p90_ms": 4.0,
        "p99_ms": 4.0,
        "samples": 3,
    }
    assert results["prefect_vs_wfx_warm_ratio"] == 400.0
    assert results["prefect_no_heartbeat_vs_wfx_warm_ratio"] == 66.667
    assert results["dagster_vs_wfx_warm_ratio"] == 100.0
    assert results["wfx_vs_raw_warm_ratio"] == 10.0
    assert results["prefect_vs_wfx_cold_ratio"] == 20.0
    assert results["dagster_vs_wfx_cold_ratio"] == 6.0
    assert results["prefect_vs_wfx_cold_list_ratio"] == 20.0
    assert results["prefect_vs_wfx_run_rss_ratio"] == 8.0
    assert results["versions"]["prefect"] == "3.9.1"
    assert results["machine"]["load_average_at_start"] == [3.0, 3.2, 3.5]


def test_the_docs_table_is_replaced_between_its_markers_and_nowhere_else() -> None:
    table = peers_report.markdown(_results())
    document = (
        f"# Performance\n\nbefore\n\n{peers_report.START}\nold table\n{peers_report.END}\n\nafter\n"
    )

    replaced = peers_report.replace_between_markers(document, table)

    assert "old table" not in replaced
    assert replaced.startswith("# Performance\n\nbefore\n\n")
    assert replaced.endswith(f"{peers_report.END}\n\nafter\n")
    assert "| Prefect, default settings | 1,200 ms |" in replaced
    assert "| 400x |" in replaced
    assert "`make bench-peers` of 2026-12-01T21:00:00Z" in replaced
    assert "load average at start 3.00 / 3.20 / 3.50" in replaced
    again = peers_report.replace_between_markers(replaced, table)
    assert again == replaced


def test_a_document_without_markers_gets_a_section_with_them() -> None:
    replaced = peers_report.replace_between_markers("# Performance\n", "TABLE")

    assert replaced.endswith(f"{peers_report.START}\nTABLE\n{peers_report.END}\n")


def test_the_worker_reads_requests_until_quit() -> None:
    lines = iter(["default 3 0\n", "\n", "no_heartbeat 2 1.5\n", "quit\n", "default 9\n"])

    assert list(peer_worker.requests(lines)) == [("default", 3, 0.0), ("no_heartbeat", 2, 1.5)]
    assert len(peer_worker.timed(lambda: None, 4, 0.0)) == 4


def test_the_tree_of_a_command_is_sampled_for_its_memory(tmp_path: Path) -> None:
    figures = tree_rss.peak((sys.executable, "-c", "x = bytearray(1 << 20)"), {}, tmp_path)

    assert figures["largest_process_mib"] > 0
    assert tree_rss.tree(1)[0] == 1
