"""The front door, as a new user walks through it: every fenced block of README.md and
docs/embedding.md marked `<!-- front-door -->` (an HTML comment, invisible on GitHub) runs in
order, as typed, in one fresh WFX_HOME, each `wfx` line in a process of its own.

What a user would type in place of a placeholder is put in: EXECUTION_ID is the run `make run`
made, an optional `[--flag VALUE]` is left out, `examples/...` is the checkout's, a port or an
endpoint is the test's own. The marker may carry settings, as `NAME=value` (an empty value
unsets it), for a block the text says to run in a changed shell; `export` lasts to the end,
as in one terminal. A command exits 0, unless the text says otherwise (EXIT), and prints what
the text says it does (`_checks`); a line or block nobody knows how to run fails the test."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.e2e.cli import REPO, TERMINAL, Outcome, Wfx
from tests.e2e.served import serving
from tests.integration.moto_server import moto_server

pytestmark = pytest.mark.xdist_group("e2e-front-door")

MARK = re.compile(
    r"^<!-- front-door(?P<settings>[^>]*?)-->\n```(?P<lang>\w*)\n(?P<body>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)
SUBSTITUTION = re.compile(r"^(?P<name>[A-Z_][A-Z0-9_]*)=\$\((?P<command>.*)\)$")
ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")
DOCUMENTED_PORT = "8000"
DOCUMENTED_ENDPOINT = "http://127.0.0.1:5000"


@dataclass(frozen=True)
class Block:
    document: str
    line: int
    lang: str
    body: str
    settings: dict[str, str]

    def where(self, offset: int = 0) -> str:
        return f"{self.document}:{self.line + offset}"


def marked_blocks(document: str) -> list[Block]:
    text = (REPO / document).read_text(encoding="utf-8")
    return [
        Block(
            document=document,
            line=text.count("\n", 0, found.start("body")) + 1,
            lang=found["lang"],
            body=found["body"],
            settings={
                name: value
                for name, _, value in (word.partition("=") for word in found["settings"].split())
            },
        )
        for found in MARK.finditer(text)
    ]


# The exit codes the text gives: the tour's run succeeded, and "a run that succeeded ... is
# refused with Step Functions' own reason (exit 2, e.g. `Execution is SUCCEEDED and cannot be
# redriven.`)".
EXIT: dict[tuple[str, ...], int] = {("executions", "redrive"): 2}


@dataclass
class Check:
    """What the text says a command prints: `says(outcome)` fails with the text's claim."""

    command: tuple[str, ...]
    says: Callable[[Outcome, str], None]
    whole: bool = False  # the command is these words, with no more
    met: int = 0

    def applies(self, words: list[str]) -> bool:
        given = words[1 : None if self.whole else 1 + len(self.command)]
        return given == list(self.command)


def _lines_numbered(outcome: Outcome, comment: str) -> None:
    numbers = [line.split()[0] for line in outcome.stdout.splitlines()]
    assert numbers[:3] == ["1", "2", "3"], comment


def _tables_counted(outcome: Outcome, comment: str) -> None:
    ready = re.match(r"(\d+) tables ready", outcome.stdout)
    assert ready, outcome.stdout
    counted = re.search(r"(\d+) tables", comment)
    assert counted is None or counted[1] == ready[1], f"{comment!r}, and wfx made {ready[1]}"


def _contains(pattern: str, stream: str = "stdout") -> Callable[[Outcome, str], None]:
    def says(outcome: Outcome, comment: str) -> None:
        assert re.search(pattern, getattr(outcome, stream), re.MULTILINE), (pattern, comment)

    return says


def _checks() -> list[Check]:
    return [
        # "published examples/mesh/workflow.yaml (three steps ...)"; `wfx demo` published the
        # same file first where wfx is installed from this checkout (CI's fresh clone): unchanged
        Check(
            ("workflows", "publish"),
            _contains(r"^(Published|Unchanged:) demo/mesh-report version \d+ \(3"),
        ),
        # "A local run's log shows each attempt of a step under its own header"
        Check(
            ("executions", "logs", "EXECUTION_ID"),
            _contains(r"^== step mesh-statistics, attempt 1 \(SUCCEEDED\) ==$"),
            whole=True,
        ),
        Check(("run",), _contains(r"^[0-9a-f]{32}$")),  # "returns at once" with the id
        Check(("executions", "show", "latest"), _contains(r"^[0-9a-f]{32}  [A-Z]+$")),
        Check(("executions", "redrive"), _contains("cannot be redriven", "stderr")),
        Check(("executions", "describe"), _contains(r"^redriveStatus +NOT_REDRIVABLE$")),
        Check(("executions", "events"), _lines_numbered),  # "numbered 1, 2, 3..."
        Check(("executions", "delete"), _contains(r"^[0-9a-f]{32} deleted$")),
        Check(("tables", "create"), _tables_counted),
        Check(("demo",), _contains(r"^demo/mesh-report: SUCCEEDED$", "stderr")),
        Check(("import",), _contains("^verified: every item")),
        Check(("auth", "token"), _contains(r"^eyJ[\w.-]+$")),
    ]


@dataclass
class Session:
    """One terminal: its settings, its shell variables, what it left running."""

    home: Path
    services: ExitStack
    demo_run: str = ""
    settings: dict[str, str] = field(default_factory=dict)
    block_settings: dict[str, str] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)
    base_url: str = ""
    checks: list[Check] = field(default_factory=_checks)

    def wfx(self, extra: dict[str, str] | None = None) -> Wfx:
        settings = self.settings | self.block_settings | (extra or {})
        return Wfx(self.home, **{k: v for k, v in settings.items() if v})

    def typed(self, word: str) -> str:
        for name, value in self.variables.items():
            word = word.replace(f"${name}", value)
        if word == "EXECUTION_ID":
            return self.demo_run
        if word.startswith("examples/"):
            return str(REPO / word) + ("/" if word.endswith("/") else "")
        return word

    def endpoint(self) -> str:
        return self.services.enter_context(moto_server())


def _logical_lines(block: Block) -> Iterator[tuple[int, str]]:
    """Each command with its line: a line ending in `\\` or inside an open quote goes on."""
    pending, start = "", 0
    for offset, line in enumerate(block.body.splitlines()):
        if not pending:
            start = offset
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        whole = (pending + line).strip()
        try:
            shlex.split(whole, comments=True)
        except ValueError:  # a quote still open
            pending = whole + "\n"
            continue
        pending = ""
        if whole and not whole.startswith("#"):
            yield start, whole


def _without_optional(words: list[str]) -> list[str]:
    kept, optional = [], False
    for word in words:
        if word.startswith("["):
            optional = True
        if not optional:
            kept.append(word)
        if word.endswith("]"):
            optional = False
    return kept


def _run_wfx(session: Session, block: Block, offset: int, line: str, words: list[str]) -> str:
    extra: dict[str, str] = {}
    while ASSIGNMENT.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        extra[name] = value
    args = tuple(session.typed(word) for word in _without_optional(words[1:]))
    if args[0] == "serve":
        _serve(session, args[1:])
        return ""
    outcome = session.wfx(extra)(*args)
    expected = EXIT.get(args[:2], 0)
    assert outcome.code == expected, f"{block.where(offset)}: {line}\n{outcome}"
    comment = line.partition(" # ")[2]
    for check in session.checks:
        if check.applies(words):
            try:
                check.says(outcome, comment)
            except AssertionError as error:
                raise AssertionError(f"{block.where(offset)}: {line}\n{outcome}") from error
            check.met += 1
    return outcome.stdout.strip()


def _serve(session: Session, args: tuple[str, ...]) -> None:
    """`wfx serve`, left running to the block's end, on the test's own port."""
    given = list(args)
    if "--port" in given:
        del given[given.index("--port") : given.index("--port") + 2]
    # one process: a second one's start (2 s on a quiet machine, more on a busy one) shows nothing
    # more of what the text says
    service_wfx = session.wfx({"WFX_SERVE_WORKERS": "1"})
    session.base_url, _ = session.services.enter_context(serving(service_wfx, *given))


def _curl(session: Session, words: list[str]) -> None:
    method, data, url = "GET", None, ""
    headers: dict[str, str] = {}
    given = iter(session.typed(word) for word in words[1:])
    for word in given:
        if word == "-H":
            name, _, value = next(given).partition(":")
            headers[name.strip()] = value.strip()
        elif word == "-X":
            method = next(given)
        elif word == "-d":
            data = next(given)
        else:
            url = word
    url = re.sub(rf"^(http://)?(localhost|127\.0\.0\.1):{DOCUMENTED_PORT}", session.base_url, url)
    answer = httpx.request(method, url, headers=headers, content=data, timeout=30)
    assert answer.status_code < 400, (url, answer.status_code, answer.text)
    document: Any = answer.json()
    assert "workflowExecutionId" in json.dumps(document), document


def _run_shell(session: Session, block: Block) -> None:
    session.block_settings = block.settings
    with session.services:
        for offset, line in _logical_lines(block):
            substituted = SUBSTITUTION.match(re.sub(r"\s+#\s.*$", "", line))
            if substituted:
                words = shlex.split(substituted["command"], comments=True)
                value = _run_wfx(session, block, offset, line, words)
                session.variables[substituted["name"]] = value
                continue
            words = shlex.split(line, comments=True)
            if words[-1] == "&":
                words.pop()
            if words[0] == "export":
                for assignment in words[1:]:
                    name, _, value = assignment.partition("=")
                    if value == DOCUMENTED_ENDPOINT:
                        value = session.endpoint()
                    session.settings[name] = value
            elif words[0] == "wfx" or ASSIGNMENT.match(words[0]):
                _run_wfx(session, block, offset, line, words)
            elif words[0] == "curl":
                _curl(session, words)
            else:
                pytest.fail(f"{block.where(offset)}: the front door cannot run {line!r}")
    session.services = ExitStack()


def _check_workflow_excerpt(block: Block) -> None:
    """The workflow file shown is the bundled one's, cut short: each field it shows is there."""
    shown = yaml.safe_load(block.body)
    bundled = yaml.safe_load((REPO / "examples" / "mesh" / "workflow.yaml").read_text())
    assert shown["workflowId"] == bundled["workflowId"], block.where()
    steps = {step["pipelineId"]: step for step in bundled["steps"]}
    for step in shown["steps"]:
        assert steps[step["pipelineId"]].items() >= step.items(), block.where()


def _start_python(block: Block, folder: Path, cleanup: ExitStack) -> Callable[[], None]:
    """A snippet runs as a script where it lives (its `__file__` finds the examples beside it),
    in a home of its own, so beside the shell blocks; the check of what it printed, to call
    once they have run."""
    examples = folder / "examples"
    shutil.copytree(REPO / "examples" / "trivial", examples / "trivial")
    script = examples / "embedding" / "snippet.py"
    script.parent.mkdir(parents=True)
    script.write_text(block.body, encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("WFX_", "AWS_"))}
    path = os.pathsep.join(filter(None, [str(REPO / "src"), environment.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [sys.executable, str(script), str(folder / "embedded-home")],
        env=environment | {"PYTHONPATH": path},
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    cleanup.callback(process.kill)  # when a block before its check failed

    def check() -> None:
        stdout, stderr = process.communicate(timeout=60)
        # "It prints the run as JSON ..., then the step count, and exits 0 when the run
        # succeeded."
        assert process.returncode == 0, (block.where(), stdout, stderr)
        assert '"executionStatus": "SUCCEEDED"' in stdout, stdout
        assert re.search(r"^\d+ steps, run SUCCEEDED$", stdout, re.MULTILINE), stdout

    return check


def _make_run(session: Session) -> None:
    """`make run` is a virtualenv, a pip install and `wfx demo` ("`make run` called `wfx
    demo`"): the test has the first two already, and runs the third."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^run: .*\n\t\$\(BIN\)/wfx demo$", makefile, re.MULTILINE), makefile
    outcome = session.wfx()("demo")
    assert outcome.code == 0, str(outcome)
    (session.demo_run,) = session.wfx().listed_ids()


def _ended(session: Session) -> bool:
    page = session.wfx().json("executions", "list", "--limit", "100")
    return all(item["executionStatus"] in TERMINAL for item in page["Items"])


def test_the_readme_and_the_embedding_guide_run_as_written(tmp_path: Path) -> None:
    session = Session(home=tmp_path / "home", services=ExitStack())
    cleanup = ExitStack()
    with cleanup:
        _walk_through(session, tmp_path, cleanup)


def _walk_through(session: Session, tmp_path: Path, cleanup: ExitStack) -> None:
    _make_run(session)
    blocks = marked_blocks("README.md") + marked_blocks("docs/embedding.md")
    assert len(blocks) >= 6, [block.where() for block in blocks]
    scripts = [
        _start_python(block, tmp_path / f"script-{index}", cleanup)
        for index, block in enumerate(blocks)
        if block.lang == "python"
    ]
    for block in blocks:
        if block.lang in ("sh", "bash"):
            _run_shell(session, block)
        elif block.lang == "yaml":
            _check_workflow_excerpt(block)
        elif block.lang != "python":
            pytest.fail(f"{block.where()}: the front door cannot run a {block.lang!r} block")
    for script in scripts:
        script()
    unmet = [" ".join(check.command) for check in session.checks if not check.met]
    assert not unmet, f"no documented command left to show what these print: {unmet}"
    # the runs the tour left going (`--no-wait`, a rerun, a launch over HTTP) end before the
    # home they write into is removed
    deadline = time.monotonic() + 60
    while not _ended(session):
        assert time.monotonic() < deadline, "a run the tour started did not end in 60 s"
        time.sleep(0.2)
