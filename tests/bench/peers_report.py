"""From the samples of `make bench-peers` to bench-peers.json and the table in docs/performance.md.

Pure functions of recorded samples, so the harness test checks them without installing a peer.
Every ratio is the other runner's median ÷ wfx's median, both from the same interleaved run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from tests.bench.timing import Samples

START = "<!-- bench-peers:start -->"
END = "<!-- bench-peers:end -->"
COMMAND = "make bench-peers"

# name in the JSON -> what the docs table calls it
WARM_RUNNERS = {
    "wfx": "wfx (inline runner, SQLite file)",
    "raw_sqlite3": "raw sqlite3 recorder (the floor)",
    "prefect": "Prefect, default settings",
    "prefect_no_heartbeat": "Prefect, heartbeats off",
    "dagster": "Dagster, `local_temp()` (SQLite)",
}
COLD_RUNS = {
    "python": "`python -c pass` (the floor)",
    "wfx": "`wfx run demo/trivial`",
    "prefect": "Prefect: one flow process",
    "dagster": "Dagster: one job process",
}
COLD_LISTS = {
    "wfx": "`wfx executions list`",
    "prefect": "`prefect flow-run ls`",
    "dagster": "Dagster `instance.get_runs(limit=20)`",
}
# what each cold list is, in words: the peers have no command that is quite the same
LIST_EQUIVALENTS = {
    "wfx": "the CLI's first page of the 100 runs in WFX_HOME",
    "prefect": "Prefect's CLI listing of flow runs (its default page), which starts the temporary "
    "API server on PREFECT_HOME like any Prefect client",
    "dagster": "a Python process that opens the instance in DAGSTER_HOME and reads a page of "
    "runs, what `dagster run list --limit 20` does without loading Dagster's whole CLI",
}


def _ratio(numerator: float, denominator: float) -> float:
    if not denominator or math.isnan(numerator) or math.isnan(denominator):
        return float("nan")
    return round(numerator / denominator, 3)


def warm_figures(warm: Mapping[str, Sequence[float]]) -> dict[str, dict[str, float | int]]:
    """Per runner: median, p10, p90, p99 (ms) and the sample count, from per-run seconds."""
    found = {}
    for name, seconds in warm.items():
        samples = Samples()
        samples.extend(seconds)
        found[name] = samples.summary_ms()
    return found


def ratios(results: Mapping[str, Any]) -> dict[str, float]:
    warm = {name: float(row["median_ms"]) for name, row in results["warm_ms"].items()}
    run = {name: float(row["median_s"]) for name, row in results["cold_run_s"].items()}
    listed = {name: float(row["median_s"]) for name, row in results["cold_list_s"].items()}
    found = {
        "prefect_vs_wfx_warm_ratio": _ratio(warm["prefect"], warm["wfx"]),
        "prefect_no_heartbeat_vs_wfx_warm_ratio": _ratio(warm["prefect_no_heartbeat"], warm["wfx"]),
        "dagster_vs_wfx_warm_ratio": _ratio(warm["dagster"], warm["wfx"]),
        "wfx_vs_raw_warm_ratio": _ratio(warm["wfx"], warm["raw_sqlite3"]),
        "prefect_vs_wfx_cold_ratio": _ratio(run["prefect"], run["wfx"]),
        "dagster_vs_wfx_cold_ratio": _ratio(run["dagster"], run["wfx"]),
        "wfx_cold_run_vs_python_ratio": _ratio(run["wfx"], run["python"]),
        "prefect_vs_wfx_cold_list_ratio": _ratio(listed["prefect"], listed["wfx"]),
        "dagster_vs_wfx_cold_list_ratio": _ratio(listed["dagster"], listed["wfx"]),
        "wfx_cold_list_vs_python_ratio": _ratio(listed["wfx"], run["python"]),
    }
    rss = results.get("peak_rss_mib", {})
    for peer in ("prefect", "dagster"):
        for kind in ("run", "list"):
            ours, theirs = rss.get(f"wfx_{kind}"), rss.get(f"{peer}_{kind}")
            if ours and theirs:
                found[f"{peer}_vs_wfx_{kind}_rss_ratio"] = _ratio(
                    theirs["tree_peak_mib"], ours["tree_peak_mib"]
                )
    return found


def build(
    machine: Mapping[str, Any],
    versions: Mapping[str, str],
    warm: Mapping[str, Sequence[float]],
    cold_run: Mapping[str, Mapping[str, Any]],
    cold_list: Mapping[str, Mapping[str, Any]],
    rss: Mapping[str, Mapping[str, float]],
    details: Mapping[str, Any],
) -> dict[str, Any]:
    """The whole bench-peers.json: machine, versions, every figure with its samples, ratios."""
    results: dict[str, Any] = {
        "machine": dict(machine),
        "command": COMMAND,
        "versions": dict(versions),
        "warm_ms": warm_figures(warm),
        "cold_run_s": {name: dict(row) for name, row in cold_run.items()},
        "cold_list_s": {name: dict(row) for name, row in cold_list.items()},
        "peak_rss_mib": {name: dict(row) for name, row in rss.items()},
        "cold_list_what": dict(LIST_EQUIVALENTS),
        "details": dict(details),
    }
    results |= ratios(results)
    return results


def _ms(value: float) -> str:
    return f"{value:,.2f}" if value < 100 else f"{value:,.0f}"


def _times(value: float) -> str:
    if math.isnan(value):
        return "-"
    return f"{value:,.2f}x" if value < 10 else f"{value:,.0f}x"


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def markdown(results: Mapping[str, Any]) -> str:
    """The table for docs/performance.md, with the command, date, load and versions above it."""
    machine = results["machine"]
    versions = results["versions"]
    load = " / ".join(f"{x:.2f}" for x in machine["load_average_at_start"])
    lines = [
        f"`{results['command']}` of {machine['date']}, load average at start {load} "
        f"({machine['cpus']} CPUs, Python {machine['python']}, SQLite {machine['sqlite']}); "
        f"Prefect {versions.get('prefect', '?')}, Dagster {versions.get('dagster', '?')}. "
        "Ratio: that row's median ÷ wfx's median in the same run, samples interleaved.",
        "",
        _row(("figure", "runner", "median", "spread", "samples", "÷ wfx")),
        _row(("---", "---", "---:", "---:", "---:", "---:")),
    ]
    warm = results["warm_ms"]
    ours = float(warm["wfx"]["median_ms"])
    for index, (name, label) in enumerate(WARM_RUNNERS.items()):
        row = warm[name]
        lines.append(
            _row(
                (
                    "warm 3-step run, recorded durably" if index == 0 else "",
                    label,
                    f"{_ms(float(row['median_ms']))} ms",
                    f"p10-p90 {_ms(float(row['p10_ms']))}-{_ms(float(row['p90_ms']))}",
                    str(row["samples"]),
                    _times(_ratio(float(row["median_ms"]), ours)),
                )
            )
        )
    for title, figures, labels in (
        ("cold one-run process", results["cold_run_s"], COLD_RUNS),
        ("cold list", results["cold_list_s"], COLD_LISTS),
    ):
        base = float(figures["wfx"]["median_s"])
        for index, (name, label) in enumerate(labels.items()):
            row = figures[name]
            lines.append(
                _row(
                    (
                        title if index == 0 else "",
                        label,
                        f"{float(row['median_s']):.3f} s",
                        f"min-max {float(row['min_s']):.3f}-{float(row['max_s']):.3f}",
                        str(row["runs"]),
                        _times(_ratio(float(row["median_s"]), base)),
                    )
                )
            )
    rss = results["peak_rss_mib"]
    for kind, labels in (("run", COLD_RUNS), ("list", COLD_LISTS)):
        base_row = rss.get(f"wfx_{kind}")
        for index, (name, label) in enumerate(labels.items()):
            row = rss.get(f"{name}_{kind}")
            if row is None:
                continue
            ratio = (
                _ratio(row["tree_peak_mib"], base_row["tree_peak_mib"]) if base_row else math.nan
            )
            lines.append(
                _row(
                    (
                        f"peak RSS, cold {kind} (process tree)" if index == 0 else "",
                        label,
                        f"{row['tree_peak_mib']:.0f} MiB",
                        f"largest process {row['largest_process_mib']:.0f} MiB",
                        "1",
                        _times(ratio),
                    )
                )
            )
    lines += [
        "",
        "Cold lists, the nearest equivalent in each: "
        + "; ".join(f"{COLD_LISTS[name]}: {what}" for name, what in LIST_EQUIVALENTS.items())
        + ". Peak RSS: the command's process tree, RSS of its live processes summed, sampled "
        "from /proc every 10 ms, one untimed run (Prefect's temporary API server is a "
        "subprocess, so it counts); beside it the largest single process.",
    ]
    return "\n".join(lines)


def replace_between_markers(text: str, block: str) -> str:
    """`text` with what lies between the markers replaced by `block`; the markers are appended
    in a section of their own when the document has none yet."""
    wrapped = f"{START}\n{block}\n{END}"
    if START in text and END in text:
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        return head + wrapped + tail
    return text.rstrip("\n") + f"\n\n## Peers side by side (`{COMMAND}`)\n\n{wrapped}\n"
