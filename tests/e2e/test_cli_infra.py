"""`wfx infra` from outside: the template as YAML or JSON on stdout or in a file, and the Lambda
zip of wfx alone, whose handler modules import from the unpacked zip."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from adapters.aws.stack.access import FUNCTIONS
from adapters.tables import CREATED_TABLES
from tests.e2e.cli import Wfx
from tests.e2e.conftest import LAMBDA_ZIP, PipedBuild


def test_the_template_is_printed_as_yaml(wfx: Wfx) -> None:
    outcome = wfx("infra", "template")
    assert outcome.code == 0, outcome
    template = yaml.safe_load(outcome.stdout)
    assert template["AWSTemplateFormatVersion"] == "2010-09-09"
    assert {f"{f.name}Function" for f in FUNCTIONS} <= set(template["Resources"])


def test_the_template_goes_to_a_file_as_json_with_the_table_prefix(
    wfx: Wfx, tmp_path: Path
) -> None:
    target = tmp_path / "template.json"
    outcome = wfx(
        "infra", "template", "--format", "json", "--table-prefix", "prod-", "--output", str(target)
    )
    assert outcome.code == 0, outcome
    assert outcome.stdout == ""
    tables = [
        r["Properties"]["TableName"]
        for r in json.loads(target.read_text())["Resources"].values()
        if r["Type"] == "AWS::DynamoDB::Table"
    ]
    assert tables and all(name.startswith("prod-") for name in tables)


def test_a_format_it_does_not_know_is_refused(wfx: Wfx) -> None:
    outcome = wfx("infra", "template", "--format", "toml")
    assert outcome.code == 2
    assert "--format: must be yaml or json" in outcome.stderr


@pytest.mark.integration
@LAMBDA_ZIP
def test_the_package_holds_the_handlers_and_they_import_from_it(
    piped_lambda_zip: PipedBuild, tmp_path: Path
) -> None:
    """wfx alone (`--no-dependencies`), the session's build (tests/e2e/conftest.py: pip builds
    the wheel in an isolated environment, ~5 s CPU), unpacked here; the dependencies come from
    this environment, every wfx module from the unpacked zip."""
    assert piped_lambda_zip.returncode == 0, piped_lambda_zip.stderr
    with zipfile.ZipFile(piped_lambda_zip.zip) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "unpacked")
    assert {"entrypoints/lambda_handlers.py", "entrypoints/http/__init__.py"} <= names
    assert not any(n.startswith("tests/") or "__pycache__" in n for n in names)
    modules = sorted({f.handler.rsplit(".", 1)[0] for f in FUNCTIONS})
    probe = (
        "import importlib, sys\n"
        f"sys.path.insert(0, {str(tmp_path / 'unpacked')!r})\n"
        f"for name in {modules!r}:\n"
        "    module = importlib.import_module(name)\n"
        "    print(module.__file__)\n"
    )
    imported = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"WFX_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
        timeout=60,
        check=False,
    )
    assert imported.returncode == 0, imported.stderr
    files = imported.stdout.split()
    assert len(files) == len(modules)
    assert all(f.startswith(str(tmp_path / "unpacked")) for f in files)


@pytest.mark.parametrize(
    ("arguments", "environment", "named"),
    [
        (("--table-prefix", "team a-"), {}, "--table-prefix"),
        (("--table-prefix", "équipe-"), {}, "--table-prefix"),
        (("--table-prefix", "x" * 230), {}, "--table-prefix"),
        ((), {"WFX_TABLE_PREFIX": "prod/"}, "WFX_TABLE_PREFIX"),
        ((), {"WFX_TABLE_PIPELINE_LOGS": "Team Logs"}, "WFX_TABLE_PIPELINE_LOGS"),
        ((), {"WFX_TABLE_AUTHORIZATION": "ab"}, "WFX_TABLE_AUTHORIZATION"),
    ],
    ids=["space", "unicode", "too-long", "slash-from-env", "override", "too-short"],
)
def test_a_table_name_dynamodb_refuses_is_refused_before_any_template(
    wfx: Wfx, arguments: tuple[str, ...], environment: dict[str, str], named: str
) -> None:
    """DynamoDB's rule (3-255 of letters, digits, `_`, `-`, `.`): never a template whose stack
    fails at deploy time; the line names where the name came from and the rule."""
    outcome = wfx.with_environment(**environment)("infra", "template", *arguments)
    assert outcome.code == 2, outcome
    assert outcome.stdout == ""
    (line,) = outcome.stderr.splitlines()
    assert named in line and "3 to 255" in line, line


def test_the_longest_table_prefix_dynamodb_takes_makes_a_template(wfx: Wfx) -> None:
    longest = 255 - max(len(spec.default_name) for spec in CREATED_TABLES)
    outcome = wfx("infra", "template", "--table-prefix", "p" * longest)
    assert outcome.code == 0, outcome
    outcome = wfx("infra", "template", "--table-prefix", "p" * (longest + 1))
    assert outcome.code == 2, outcome


@pytest.mark.parametrize(
    ("prefix", "rule"),
    [("team a", "dot-separated words"), ("aws.team", "aws."), ("a" * 76, "at most 75")],
    ids=["space", "reserved", "too-long"],
)
def test_an_event_source_prefix_eventbridge_refuses_is_named_as_the_option(
    wfx: Wfx, prefix: str, rule: str
) -> None:
    """A source is `<prefix>.execution.<id>.pipeline.<id>` in EventBridge's 256 characters, ids
    up to 80 each: a longer prefix would leave some run unable to register."""
    outcome = wfx("infra", "template", "--event-source-prefix", prefix)
    assert outcome.code == 2, outcome
    assert outcome.stdout == ""
    (line,) = outcome.stderr.splitlines()
    assert "--event-source-prefix" in line and rule in line, line
    assert wfx("infra", "template", "--event-source-prefix", "a" * 75).code == 0


def _project(root: Path) -> Path:
    """A project of one package, built by setuptools as wfx is (package-dir src)."""
    (root / "src" / "tiny").mkdir(parents=True)
    (root / "src" / "tiny" / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "tiny"\nversion = "1"\n'
        '[tool.setuptools]\npackages = ["tiny"]\n[tool.setuptools.package-dir]\n"" = "src"\n'
    )
    return root


@pytest.mark.integration
def test_the_package_is_built_outside_the_project_and_holds_nothing_an_earlier_build_left(
    wfx: Wfx, tmp_path: Path
) -> None:
    """setuptools builds in the project's build/ and src/*.egg-info and zips what build/lib
    holds: a module removed since an earlier build (or a file put there) would go to Lambda."""
    project = _project(tmp_path / "project")
    stale = project / "build" / "lib" / "tiny" / "removed_since.py"
    stale.parent.mkdir(parents=True)
    stale.write_text("KEY = 'from an earlier build'\n")
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    target = tmp_path / "tiny.zip"
    outcome = wfx(
        "infra",
        "package",
        "--no-dependencies",
        "--project",
        str(project),
        "--output",
        str(target),
        timeout=120,
    )
    assert outcome.code == 0, outcome
    with zipfile.ZipFile(target) as archive:
        names = archive.namelist()
    assert "tiny/__init__.py" in names
    assert not any("removed_since" in n or "egg-info" in n for n in names), names
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == before
