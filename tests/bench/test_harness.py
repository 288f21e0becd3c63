"""The benchmark harness itself works: it measures and reports. No timing is asserted here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.bench import cold, report, run
from tests.bench.timing import percentile

IMPORTTIME_SAMPLE = """\
import time: self [us] | cumulative | imported package
import time:       120 |        120 | _io
import time:       300 |        900 |   sqlalchemy.sql
import time:       400 |       1300 | sqlalchemy
import time:      2000 |       2000 | typer
"""


def test_a_quick_run_writes_every_required_key(tmp_path: Path) -> None:
    output = tmp_path / "bench-results.json"
    arguments = ["--quick", "--only", "launch,lists,runner,registration,events", "--no-profile"]
    code = run.main([*arguments, "--sizes", "200,400", "--output", str(output)])

    assert code == 0
    results = json.loads(output.read_text(encoding="utf-8"))
    measured = ("launch_per_s", "raw_launch_per_s", "runner_overhead_ms", "registration_new_ms")
    ratios = (
        "launch_ratio",
        "runner_vs_raw_ratio",
        "runner_vs_replay_ratio",
        "replay_vs_raw_ratio",
        "list_vs_raw_decode_ratio",
        "list_flatness",
    )
    appends = ("event_append_ms", "raw_event_append_ms")
    for key in (
        *measured,
        *ratios,
        "registration_redelivery_ms",
        "details_with_50_logs_ms",
        *appends,
    ):
        assert results[key] > 0, key
    assert set(results["list_first_page_ms"]) == {"200", "400"}
    # 1 main, 1 selection and its 4 files, 1 configuration, 3 + 3 steps
    assert results["rows_per_launch"] == 13
    assert results["targets"][0]["figure"].startswith("launches/s")


def test_importtime_lines_become_costs_with_their_depth() -> None:
    costs = cold.parse_importtime(IMPORTTIME_SAMPLE)

    assert [(c.module, c.depth) for c in costs] == [
        ("_io", 0),
        ("sqlalchemy.sql", 1),
        ("sqlalchemy", 0),
        ("typer", 0),
    ]
    assert costs[2].cumulative_ms == 1.3


def test_a_missed_target_says_no_and_a_met_one_says_yes() -> None:
    cold_figures = {"cold_list_s": 0.5, "cold_run_s": 0.09, "python_startup_s": 0.02}
    ratios = {"cold_list_vs_python_ratio": 25.0, "cold_run_vs_python_ratio": 4.5}
    rows = report.figures(cold_figures | ratios)

    verdicts = {row.name: row.verdict for row in rows}
    assert verdicts["cold `wfx executions list` vs `python -c pass` (s)"] == "NO"
    assert verdicts["cold `wfx run` trivial vs `python -c pass` (s)"] == "yes"


def test_percentile_picks_the_nearest_rank() -> None:
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.99) == 5.0


def test_the_lambda_figures_are_held_to_the_issues_ratio() -> None:
    measured = {
        "lambda_cold_http_s": 1.8,
        "lambda_cold_bare_mangum_s": 1.0,
        "lambda_cold_ratio": 1.8,
        "lambda_cold_min_ratio": 1.7,
        "lambda_cold_rss_ratio": 1.3,
        "lambda_cold_callback_max_ratio": 0.8,
    }

    missed, callbacks = report.figures(measured)
    met = report.figures(measured | {"lambda_cold_ratio": 1.4})[0]

    assert missed.name.startswith("Lambda HTTP")
    assert (missed.met, met.met, callbacks.met) == (False, True, None)
    assert "1.80x" in missed.value and "1.70x" in missed.value


def test_the_http_figures_are_held_to_the_issues_gain_and_p99_ratio() -> None:
    def clients(req_per_s: float, cores: float) -> dict[str, float]:
        return {"req_per_s": req_per_s, "cores_used": cores}

    measured = {
        "http_one_client_req_per_s": 100.0,
        "http_clients_req_per_s": 150.0,
        "http_concurrency_gain": 1.5,
        "http_one_client_p99_ms": 20.0,
        "http_clients_p99_ms": 50.0,
        "http_p99_ratio": 2.5,
        "http_errors": 0,
        "http_detail": {
            "workers": 2,
            "clients": 8,
            "by_workers": {"2": {"one_client": clients(100, 0.9), "8_clients": clients(150, 1.4)}},
        },
    }

    gain, p99, errors = report.figures(measured)
    met_gain = report.figures(measured | {"http_concurrency_gain": 1.7})[0]
    missed_p99 = report.figures(measured | {"http_p99_ratio": 3.2})[1]
    with_errors = report.figures(measured | {"http_errors": 3})[2]

    assert (gain.met, met_gain.met, p99.met, missed_p99.met) == (False, True, True, False)
    assert (errors.met, with_errors.met) == (True, False)
    assert "150 vs 100 = 1.50x" in gain.value and "1.40 vs 0.90 cores" in gain.value


def test_the_details_figures_hold_the_larger_run_to_its_gain() -> None:
    def run(steps: int, gain: float) -> dict[str, Any]:
        return {
            f"details_{steps}_steps_ms": {"at once": 30.0, "one after another": 30.0 * gain},
            f"details_{steps}_steps_gain": gain,
            f"details_{steps}_steps_requests": 7 * steps + 5,
        }

    measured = {"details_round_trip_ms": 5.0, "details_latency_gain": 4.5}
    measured |= run(3, 2.0) | run(30, 4.5)

    small, large = report.figures(measured)
    missed = report.figures(measured | run(30, 3.5))[1]

    assert (small.met, large.met, missed.met) == (None, True, False)
    assert "135.0 vs 30.0 = 4.50x (215 requests)" in large.value
