"""Names that reach DynamoDB's key limits, through the real `wfx` on moto's server: refused
before anything is stored, in one line naming the field and the rule, never a botocore
ValidationException as a traceback. The same names on a SQLite file get the same answer: a run
exported from one store must import into the other."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import restore_dynamodb_tables
from tests.e2e.cli import FAKE_AWS, Wfx
from tests.integration.moto_server import moto_server

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-key-limits-on-moto")]


@pytest.fixture(params=["dynamodb", "sqlite"])
def wfx(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Wfx]:
    if request.param == "sqlite":
        yield Wfx(tmp_path / "home")
        return
    # taken first: made the first time in a mock_aws(), which empties the server's backends
    tables = request.getfixturevalue("_pristine_dynamodb_tables")
    with moto_server() as url:
        restore_dynamodb_tables(tables)  # every table, empty, as `wfx tables create` makes them
        yield Wfx(tmp_path / "home", WFX_STORE="dynamodb", WFX_DYNAMODB_ENDPOINT=url, **FAKE_AWS)


def _deep_file(root: Path, folders: int) -> Path:
    """A file under `folders` nested folders of 240-byte names."""
    folder = root.joinpath(*["d" * 240] * folders)
    folder.mkdir(parents=True)
    (folder / "mesh.obj").write_text("v 0 0 0\n", encoding="utf-8")
    return root


def test_a_file_key_past_the_key_limits_is_refused_naming_it(wfx: Wfx, tmp_path: Path) -> None:
    """`assets/db/deep/` and a 1,213-byte key: over S3's 1024-byte object key and DynamoDB's
    1024-byte sort key (`WfxAssetFilesTable.fileKey`); moto said `Aggregated size of all range
    keys has exceeded the size limit of 1024 bytes` through a traceback."""
    source = _deep_file(tmp_path / "source", folders=5)
    (source / "small.obj").write_text("v 1 1 1\n", encoding="utf-8")

    outcome = wfx("assets", "import", "db", "deep", str(source))

    assert outcome.code == 2, str(outcome)
    [line] = outcome.stderr_lines
    assert line.startswith("error: files[0]: "), line
    assert "1024 bytes" in line and "mesh.obj" in line, line
    assert "Traceback" not in outcome.stderr
    listed = wfx("assets", "list", "db/deep")
    assert "small.obj" not in listed.stdout, str(listed)  # nothing of the import stored


def test_a_file_key_that_fits_with_its_ids_is_imported(wfx: Wfx, tmp_path: Path) -> None:
    """Four folders: `assets/db/deep/` and a 972-byte key, 987 bytes in all."""
    source = _deep_file(tmp_path / "source", folders=4)

    outcome = wfx("assets", "import", "db", "deep", str(source))

    assert outcome.code == 0, str(outcome)
    assert "mesh.obj" in wfx.ok("assets", "list", "db/deep").stdout


def test_file_metadata_past_its_bound_is_refused_naming_it(wfx: Wfx, tmp_path: Path) -> None:
    """Four values of 120,000 bytes (each under Linux's 128 KiB an argument may have) make an
    asset file row of 480 KB, over DynamoDB's 400 KB item: moto said `Item size has exceeded
    the maximum allowed size` through a traceback, and SQLite stored the row."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "mesh.obj").write_text("v 0 0 0\n", encoding="utf-8")
    values = [f"--metadata=k{index}={'v' * 120_000}" for index in range(4)]

    outcome = wfx("assets", "import", "db", "tagged", str(source), *values)

    assert outcome.code == 2, str(outcome)[:2000]
    [line] = outcome.stderr_lines
    assert line.startswith("error: metadata: "), line[:500]
    assert "65536 bytes" in line and len(line) < 300, line[:500]
    listed = wfx("assets", "list", "db/tagged")
    assert "mesh.obj" not in listed.stdout, str(listed)


def test_a_metadata_key_longer_than_an_id_is_refused_naming_it(wfx: Wfx, tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (source / "mesh.obj").write_text("v 0 0 0\n", encoding="utf-8")

    outcome = wfx("assets", "import", "db", "tagged", str(source), f"--metadata={'k' * 257}=v")

    assert outcome.code == 2, str(outcome)
    [line] = outcome.stderr_lines
    assert line.startswith("error: metadata: ") and "256 characters" in line, line[:500]
    assert "mesh.obj" not in wfx("assets", "list", "db/tagged").stdout


@pytest.mark.parametrize(
    ("option", "value"),
    [("--group", "g" * 3000), ("--workflow", f"db/{'w' * 3000}"), ("--asset", f"db/{'a' * 3000}")],
)
def test_a_list_filter_longer_than_an_id_is_refused_naming_it(
    wfx: Wfx, option: str, value: str
) -> None:
    """A 3,000-character group, workflow or asset becomes a partition key over DynamoDB's 2048
    bytes: AWS refuses the query with a ValidationException, moto answered `No executions.`.
    The HTTP lists take at most 256 characters an id; the CLI takes what they do."""
    outcome = wfx("executions", "list", option, value)

    assert outcome.code == 2, str(outcome)[:2000]
    [line] = outcome.stderr_lines
    assert line.startswith(f"error: {option}: ") and "256 characters" in line, line[:500]
    assert len(line) < 300, line[:500]


def test_a_list_filter_of_256_characters_is_read(wfx: Wfx) -> None:
    for option, value in (("--group", "g" * 256), ("--asset", f"{'d' * 256}/{'a' * 256}")):
        assert "No executions." in wfx.ok("executions", "list", option, value).stdout


@pytest.mark.parametrize("option", ["--group", "--workflow", "--asset"])
def test_a_cost_summary_key_longer_than_the_services_is_refused_naming_it(
    wfx: Wfx, option: str
) -> None:
    """The cost ledger reads the key as a partition key; `GET /costs` takes at most 512
    characters, the CLI printed `0 entries` for 3,000."""
    outcome = wfx("costs", "summary", option, f"db/{'k' * 3000}")

    assert outcome.code == 2, str(outcome)[:2000]
    [line] = outcome.stderr_lines
    assert line.startswith(f"error: {option}: ") and "512 characters" in line, line[:500]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("approvals", "approve", "p" * 3000), "APPROVAL_ID"),
        (("approvals", "reject", "p" * 3000, "--reason", "no"), "APPROVAL_ID"),
        (("assets", "list", f"db/{'a' * 3000}"), "DATABASE_ID/ASSET_ID"),
        (("assets", "download", f"db/{'a' * 3000}", "f.obj"), "DATABASE_ID/ASSET_ID"),
    ],
)
def test_an_id_read_as_a_key_longer_than_the_services_is_refused_naming_it(
    wfx: Wfx, args: tuple[str, ...], named: str
) -> None:
    """An approval id or an asset read by its key: over DynamoDB's 2048 bytes for 3,000
    characters, which AWS refuses with a ValidationException where moto said `not found`. The
    HTTP routes take ids of at most 256 characters."""
    outcome = wfx(*args)

    assert outcome.code == 2, str(outcome)[:2000]
    [line] = outcome.stderr_lines
    assert line.startswith(f"error: {named}: ") and "256 characters" in line, line[:500]


WIDE = "\U00010000"  # four bytes of UTF-8 a character


@pytest.mark.parametrize(
    "args",
    [
        ("executions", "list", "--asset", f"{WIDE * 256}/{WIDE * 256}"),
        ("executions", "list", "--workflow", f"{WIDE * 256}/{WIDE * 256}"),
        ("assets", "list", f"{WIDE * 256}/{WIDE * 256}"),
        ("run", "db/wf", "--input", f"{WIDE * 256}/{WIDE * 256}/mesh.obj"),
    ],
)
def test_ids_within_the_character_bound_whose_key_passes_2048_bytes_are_refused(
    wfx: Wfx, args: tuple[str, ...]
) -> None:
    """Two 256-character ids of 4-byte characters make a `databaseId:assetId` partition key of
    2049 bytes: DynamoDB refuses the query (a ValidationException), SQLite answered nothing.
    One rule for both stores, in bytes, naming what was given."""
    outcome = wfx(*args)

    assert outcome.code == 2, str(outcome)[:2000]
    [line] = outcome.stderr_lines
    named = {"executions": args[2], "assets": "DATABASE_ID/ASSET_ID", "run": "--input"}[args[0]]
    assert line.startswith(f"error: {named}: ") and "2048 bytes" in line, line[:500]
    assert len(line) < 300, line[:500]


def test_a_run_input_longer_than_an_id_is_refused_naming_it(wfx: Wfx) -> None:
    """Read by the catalog's key: over DynamoDB's 2048 bytes, where the error echoed all of it."""
    outcome = wfx("run", "db/wf", "--input", f"db/{'a' * 3000}")

    assert outcome.code == 2, str(outcome)[:2000]
    [line] = outcome.stderr_lines
    assert line.startswith("error: --input: ") and "256 characters" in line, line[:500]
    assert len(line) < 300, line[:500]


def test_ids_whose_key_is_2048_bytes_are_read(wfx: Wfx) -> None:
    ids = f"{WIDE * 256}/{WIDE * 255}\u0800"  # 1024 + 1 + 1023 bytes, 256 characters an id
    assert "No executions." in wfx.ok("executions", "list", "--asset", ids).stdout
