"""Cold processes: `wfx executions list` and `wfx run`, each a whole new Python process.

hyperfine when it is installed (`-N`, median of the runs); otherwise median of `subprocess.run`
wall times, the commands interleaved round-robin after warm-ups. Also `python -c pass` (the floor)
and `-X importtime` of both commands, so the heaviest imports can be named.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.bench.fixtures import (
    ASSET,
    TRIVIAL_WORKFLOW,
    USER,
    bench_container,
    import_small_files,
    publish,
)
from tests.bench.runner import recorded_run
from tests.bench.timing import median

WFX_MODULE = (sys.executable, "-m", "entrypoints.cli.main")
HISTORY = 100


def wfx_command() -> tuple[str, ...]:
    """The installed console script beside this interpreter, else `python -m` on the CLI module."""
    script = Path(sys.executable).with_name("wfx")
    return (str(script),) if script.exists() else WFX_MODULE


def cold_environment(home: Path) -> dict[str, str]:
    """The caller's environment without anything that would point wfx elsewhere."""
    kept = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("WFX_", "AWS_", "PYTHON", "COLUMNS", "LINES"))
    }
    return kept | {"WFX_HOME": str(home), "WFX_USER": USER}


def prepare_home(home: Path) -> None:
    """A WFX_HOME (default database file) with the trivial workflow, an asset and 100 runs."""
    container = bench_container(home, runner_mode="inline", database="wfx.db")
    version = publish(container, TRIVIAL_WORKFLOW)
    import_small_files(container, home.parent / "cold-inputs")
    for _ in range(HISTORY):
        recorded_run(container, version)
    container.sqlite_database().close()


@dataclass(frozen=True)
class Command:
    name: str
    argv: tuple[str, ...]
    environment: Mapping[str, str] | None = None  # instead of the shared one (the peers' own)


def _run_once(command: Command, environment: Mapping[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    completed = subprocess.run(
        command.argv,
        env=dict(command.environment or environment),
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command.argv)} exited {completed.returncode}:\n{completed.stderr}"
        )
    return elapsed


def subprocess_medians(
    commands: Sequence[Command], environment: Mapping[str, str], cwd: Path, runs: int, warmup: int
) -> dict[str, dict[str, Any]]:
    """Rounds in which each command runs once, the order reversed every other round, so that
    neither a noisy minute nor going first (or right after a heavy neighbour) favours one."""
    for _ in range(warmup):
        for command in commands:
            _run_once(command, environment, cwd)
    times: dict[str, list[float]] = {command.name: [] for command in commands}
    for index in range(runs):
        for command in commands if index % 2 == 0 else reversed(commands):
            times[command.name].append(_run_once(command, environment, cwd))
    return {
        name: {
            "median_s": round(median(values), 4),
            "min_s": round(min(values), 4),
            "max_s": round(max(values), 4),
            "runs": len(values),
            "samples_s": [round(value, 4) for value in values],
            "tool": "subprocess.run",
        }
        for name, values in times.items()
    }


def _hyperfine_medians(
    commands: Sequence[Command], environment: Mapping[str, str], cwd: Path, runs: int, warmup: int
) -> dict[str, dict[str, Any]]:
    hyperfine = shutil.which("hyperfine")
    assert hyperfine is not None
    with tempfile.NamedTemporaryFile(suffix=".json") as export:
        argv = [hyperfine, "-N", "--warmup", str(warmup), "--runs", str(runs)]
        argv += ["--export-json", export.name]
        for command in commands:
            argv += ["-n", command.name, " ".join(_shell_word(part) for part in command.argv)]
        subprocess.run(
            argv, env=dict(environment), cwd=cwd, check=True, capture_output=True, text=True
        )
        results = json.loads(Path(export.name).read_text(encoding="utf-8"))["results"]
    return {
        result["command"]: {
            "median_s": round(result["median"], 4),
            "min_s": round(result["min"], 4),
            "max_s": round(result["max"], 4),
            "runs": len(result["times"]),
            "tool": "hyperfine -N",
        }
        for result in results
    }


def _shell_word(word: str) -> str:
    if word and all(c.isalnum() or c in "-_./=:" for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


@dataclass(frozen=True)
class ImportCost:
    module: str
    self_ms: float
    cumulative_ms: float
    depth: int


def parse_importtime(stderr: str) -> list[ImportCost]:
    """The `import time:` lines of `python -X importtime`; depth 0 = imported by the program."""
    costs = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "[us]" in line:
            continue
        self_us, cumulative_us, name = line.removeprefix("import time:").split("|", 2)
        stripped = name.lstrip(" ")
        depth = (len(name) - len(stripped) - 1) // 2
        costs.append(
            ImportCost(stripped.strip(), int(self_us) / 1000, int(cumulative_us) / 1000, depth)
        )
    return costs


def importtime(
    argv: Sequence[str], environment: Mapping[str, str], cwd: Path, repeats: int
) -> dict[str, Any]:
    """Median per module over `repeats` processes; the ten heaviest top-level imports and the ten
    heaviest modules by their own time."""
    runs: list[list[ImportCost]] = []
    for _ in range(repeats):
        completed = subprocess.run(
            [sys.executable, "-X", "importtime", *argv],
            env=dict(environment),
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            raise RuntimeError(f"importtime {' '.join(argv)}: {completed.stderr[-2000:]}")
        runs.append(parse_importtime(completed.stderr))
    cumulative: dict[str, list[float]] = {}
    own: dict[str, list[float]] = {}
    top_level: set[str] = set()
    for costs in runs:
        for cost in costs:
            cumulative.setdefault(cost.module, []).append(cost.cumulative_ms)
            own.setdefault(cost.module, []).append(cost.self_ms)
            if cost.depth == 0:
                top_level.add(cost.module)
    total = median([sum(c.cumulative_ms for c in costs if c.depth == 0) for costs in runs])
    packages: dict[str, list[float]] = {}
    for costs in runs:
        per_run: dict[str, float] = {}
        for cost in costs:
            root = cost.module.split(".", 1)[0]
            per_run[root] = per_run.get(root, 0.0) + cost.self_ms
        for root, ms in per_run.items():
            packages.setdefault(root, []).append(ms)
    by_package = sorted(packages, key=lambda root: median(packages[root]), reverse=True)[:12]
    first_run_order = [cost.module for cost in runs[0] if cost.depth == 0]
    heaviest = sorted(top_level, key=lambda m: median(cumulative[m]), reverse=True)[:10]
    slowest_self = sorted(own, key=lambda m: median(own[m]), reverse=True)[:10]
    return {
        "command": " ".join(argv),
        "total_import_ms": round(total, 1),
        "modules_imported": median([len(costs) for costs in runs]),
        "top_cumulative_ms": [
            {"module": m, "ms": round(median(cumulative[m]), 1)} for m in heaviest
        ],
        "top_self_ms": [{"module": m, "ms": round(median(own[m]), 1)} for m in slowest_self],
        "self_ms_by_package": {root: round(median(packages[root]), 1) for root in by_package},
        "top_level": ["entrypoints.cli.main", *first_run_order],
    }


def imports_only(modules: Sequence[str]) -> tuple[str, ...]:
    """A process that imports the same modules a command imported, and does nothing else."""
    script = (
        "import importlib\n"
        f"for name in {list(modules)!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception:\n"
        "        pass\n"
    )
    return (sys.executable, "-c", script)


def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def measure(workdir: Path, runs: int, warmup: int, importtime_repeats: int) -> dict[str, Any]:
    home = workdir / "home"
    prepare_home(home)
    environment = cold_environment(home)
    wfx = wfx_command()
    list_argv = ("-m", "entrypoints.cli.main", "executions", "list")
    run_argv = ("-m", "entrypoints.cli.main", "run", "demo/trivial", "--input", ASSET)
    list_imports = importtime(list_argv, environment, home, importtime_repeats)
    run_imports = importtime(run_argv, environment, home, importtime_repeats)
    commands = [
        Command("python -c pass", (sys.executable, "-c", "pass")),
        Command("wfx executions list", (*wfx, "executions", "list")),
        Command("imports of executions list", imports_only(list_imports.pop("top_level"))),
        Command("wfx run", (*wfx, "run", "demo/trivial", "--input", ASSET)),
        Command("imports of run", imports_only(run_imports.pop("top_level"))),
    ]
    # the home folder as cwd: the repo's own folders must not shadow installed packages
    timer = _hyperfine_medians if shutil.which("hyperfine") else subprocess_medians
    timings = timer(commands, environment, home, runs, warmup)

    def seconds(name: str) -> float:
        return float(timings[name]["median_s"])

    floor = seconds("python -c pass")
    return {
        "cold_list_s": seconds("wfx executions list"),
        "cold_run_s": seconds("wfx run"),
        "python_startup_s": floor,
        "cold_list_vs_python_ratio": round(seconds("wfx executions list") / floor, 2),
        "cold_run_vs_python_ratio": round(seconds("wfx run") / floor, 2),
        # the condition: measured in a venv that has the test extras (moto, werkzeug)
        "cold_venv_has_test_extras": _importable("moto") and _importable("werkzeug"),
        "cold_detail": {
            "wfx": " ".join(wfx),
            "history_executions": HISTORY,
            "timings": timings,
            # what is left once the same modules are imported: parsing, container, SQL, output
            "list_beyond_imports_s": round(
                seconds("wfx executions list") - seconds("imports of executions list"), 4
            ),
            "run_beyond_imports_s": round(seconds("wfx run") - seconds("imports of run"), 4),
            "importtime_list": list_imports,
            "importtime_run": run_imports,
        },
    }
