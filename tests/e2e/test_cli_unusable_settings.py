"""A WFX_HOME, WFX_DB or WFX_DYNAMODB_ENDPOINT wfx cannot use: exit 3, one line naming the
variable and what to do, never a traceback, and nothing already stored changed."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.cli import FAKE_AWS, TRIVIAL_WORKFLOW, Outcome, Wfx

# A read, a write and a run: each builds its storage at a different moment.
COMMANDS = {
    "list": ("executions", "list"),
    "publish": ("workflows", "publish", str(TRIVIAL_WORKFLOW)),
    "run": ("run", "demo/trivial"),
}
ROOT = os.geteuid() == 0


def assert_unusable(outcome: Outcome, variable: str) -> None:
    """Exit 3, nothing on stdout, one `error: ...` line on stderr that names the variable."""
    assert outcome.code == 3, str(outcome)
    assert outcome.stdout == "", str(outcome)
    assert "Traceback" not in outcome.stderr, str(outcome)
    [line] = outcome.stderr_lines
    assert line.startswith("error: "), str(outcome)
    assert variable in line, f"{variable} not named in {line!r}"


def _wfx_with(tmp_path: Path, **environment: str) -> Wfx:
    """`wfx` with the environment given, and no home made for it in advance."""
    wfx = Wfx(tmp_path / "unused-home")
    return wfx.with_environment(**environment)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder nobody can create anything in: chmod 555, or for root (whom modes do not stop)
    a folder of sysfs, which refuses new entries to everyone."""
    if ROOT:
        if not Path("/sys/kernel").is_dir():
            pytest.skip("running as root, and no sysfs to stand in for a read-only folder")
        yield Path("/sys/kernel")
        return
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
    yield folder
    folder.chmod(stat.S_IRWXU)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_wfx_home_that_is_a_file_is_named_and_left_as_it_is(tmp_path: Path, command: str) -> None:
    home = tmp_path / "home"
    home.write_text("my notes\n")

    outcome = _wfx_with(tmp_path, WFX_HOME=str(home))(*COMMANDS[command])

    assert_unusable(outcome, "WFX_HOME")
    assert "is a file" in outcome.stderr
    assert home.read_text() == "my notes\n"


def test_a_wfx_home_under_a_file_cannot_be_created(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")

    outcome = _wfx_with(tmp_path, WFX_HOME=str(tmp_path / "file" / "wfx"))(*COMMANDS["list"])

    assert_unusable(outcome, "WFX_HOME")
    assert "cannot be created" in outcome.stderr


def test_a_wfx_home_under_a_read_only_folder_cannot_be_created(
    tmp_path: Path, read_only_folder: Path
) -> None:
    home = read_only_folder / f"wfx-e2e-{uuid.uuid4().hex}" / "home"

    outcome = _wfx_with(tmp_path, WFX_HOME=str(home))(*COMMANDS["publish"])

    assert_unusable(outcome, "WFX_HOME")
    assert "cannot be created" in outcome.stderr
    assert not home.parent.exists()


@pytest.mark.parametrize("with_db_elsewhere", [False, True], ids=["db-in-home", "db-elsewhere"])
def test_a_wfx_home_that_is_not_writable_is_named(
    tmp_path: Path, read_only_folder: Path, with_db_elsewhere: bool
) -> None:
    database = {"WFX_DB": str(tmp_path / "db" / "wfx.db")} if with_db_elsewhere else {}
    wfx = _wfx_with(tmp_path, WFX_HOME=str(read_only_folder), **database)
    asset = tmp_path / "bunny.obj"
    asset.write_text("v 0 0 0\n")

    outcome = wfx("assets", "import", "demo", "meshes", str(asset))

    assert_unusable(outcome, "WFX_HOME")


def test_a_wfx_db_that_is_not_a_database_is_never_opened(tmp_path: Path) -> None:
    database = tmp_path / "notes.txt"
    database.write_text("not a database\n")
    wfx = _wfx_with(tmp_path, WFX_HOME=str(tmp_path / "home"), WFX_DB=str(database))

    for command in COMMANDS.values():
        outcome = wfx(*command)

        assert_unusable(outcome, "WFX_DB")
        assert "is not a SQLite database" in outcome.stderr
    assert database.read_text() == "not a database\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "notes.txt", "unused-home"]


def _damaged(wfx_db: bytes, how: str) -> bytes:
    page = int.from_bytes(wfx_db[16:18], "big")
    if how == "truncated mid-page":
        return wfx_db[: len(wfx_db) // 2 + 123]
    if how == "truncated to whole pages":
        return wfx_db[: (len(wfx_db) // page // 2) * page]
    garbage = hashlib.shake_256(b"garbage").digest(len(wfx_db) - page)
    return wfx_db[:page] + garbage  # "garbage after the first page"


@pytest.fixture(scope="module")
def used_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home that published a workflow and ran it once: what each damage starts from."""
    wfx = Wfx(tmp_path_factory.mktemp("used") / "home")
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    wfx.ok("run", "demo/trivial")
    return wfx.home


@pytest.mark.parametrize(
    "how", ["truncated mid-page", "truncated to whole pages", "garbage after the first page"]
)
def test_a_damaged_wfx_db_is_named_and_not_changed_by_any_command(
    used_home: Path, tmp_path: Path, how: str
) -> None:
    wfx = Wfx(Path(shutil.copytree(used_home, tmp_path / "home")))
    database = wfx.home / "wfx.db"
    database.write_bytes(_damaged(database.read_bytes(), how))
    before, files_before = _digest(database), sorted(os.listdir(wfx.home))

    for command in COMMANDS.values():
        outcome = wfx(*command)

        assert_unusable(outcome, "WFX_DB")
        assert "is corrupted" in outcome.stderr
        assert _digest(database) == before
        assert sorted(os.listdir(wfx.home)) == files_before  # no -wal, no -shm, no new file


def test_a_wfx_db_whose_folder_cannot_be_created_is_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    database = tmp_path / "file" / "wfx.db"

    outcome = _wfx_with(tmp_path, WFX_HOME=str(tmp_path / "home"), WFX_DB=str(database))(
        *COMMANDS["publish"]
    )

    assert_unusable(outcome, "WFX_DB")
    assert "its folder" in outcome.stderr


@pytest.mark.parametrize(
    "endpoint",
    ["not-a-url", "localhost:5000", "ftp://127.0.0.1:5000", "http://", "http://host:port"],
)
def test_a_dynamodb_endpoint_that_is_not_an_http_url_is_named(
    tmp_path: Path, endpoint: str
) -> None:
    wfx = Wfx(tmp_path / "home", WFX_STORE="dynamodb", WFX_DYNAMODB_ENDPOINT=endpoint, **FAKE_AWS)

    outcome = wfx(*COMMANDS["list"])

    assert_unusable(outcome, "WFX_DYNAMODB_ENDPOINT")
    assert repr(endpoint) in outcome.stderr and "http://" in outcome.stderr


def test_a_wfx_home_too_deep_for_an_object_path_says_so(tmp_path: Path) -> None:
    """A 3,800-byte WFX_HOME (WFX_DB elsewhere) leaves no room for a 204-byte file key under
    `objects/assets/DB/ASSET/`: the path passes Linux's 4096 bytes (ENAMETOOLONG). wfx said
    `set WFX_HOME to a folder you can write to`, of a folder one can write to."""
    home = tmp_path.joinpath(*["h" * 200] * 19)
    source = tmp_path / "source"
    source.mkdir()
    (source / f"{'m' * 200}.obj").write_text("v 0 0 0\n", encoding="utf-8")
    wfx = Wfx(home, WFX_DB=str(tmp_path / "wfx.db"))

    outcome = wfx("assets", "import", "db", "deep", str(source))

    assert_unusable(outcome, "WFX_HOME")
    [line] = outcome.stderr_lines
    assert "longer than the file system takes" in line, line[-300:]
    assert "can write to" not in line and "shorter path" in line, line[-300:]
    assert "m" * 200 not in line, line[-300:]  # the path said by its length: the home is long
