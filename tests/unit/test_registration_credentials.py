"""The local runner's per-step registration credentials: HMAC-SHA256 of the step's ids under a
key kept in WFX_HOME, made on first use, mode 0600, the same for every process that races to
make it."""

from __future__ import annotations

import hashlib
import hmac
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.local import registration_credentials as module
from adapters.local.registration_credentials import KEY_FILE_NAME, HmacRegistrationCredentials
from domain.errors import InvalidInputError

posix_only = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's")


def test_a_credential_is_the_hmac_of_the_steps_ids_under_the_key(tmp_path: Path) -> None:
    credentials = HmacRegistrationCredentials(tmp_path)

    token = credentials.issue("exec-1", "step-1")

    key = (tmp_path / KEY_FILE_NAME).read_bytes()
    assert len(key) == 32
    assert token == hmac.new(key, b"exec-1:step-1", hashlib.sha256).hexdigest()
    assert credentials.issue("exec-1", "step-1") == token
    assert HmacRegistrationCredentials(tmp_path).issue("exec-1", "step-1") == token


def test_each_step_of_each_run_has_its_own(tmp_path: Path) -> None:
    credentials = HmacRegistrationCredentials(tmp_path)
    tokens = {credentials.issue(run, step) for run in ("exec-1", "exec-2") for step in ("s1", "s2")}

    assert len(tokens) == 4
    assert HmacRegistrationCredentials(tmp_path / "elsewhere").issue("exec-1", "s1") not in tokens


def test_only_the_steps_own_credential_verifies(tmp_path: Path) -> None:
    credentials = HmacRegistrationCredentials(tmp_path)
    token = credentials.issue("exec-1", "step-1")

    assert credentials.verify("exec-1", "step-1", token)
    assert not credentials.verify("exec-1", "step-2", token)
    assert not credentials.verify("exec-2", "step-1", token)
    assert not credentials.verify("exec-1", "step-1", token.upper())
    assert not credentials.verify("exec-1", "step-1", token[:-1])
    assert not credentials.verify("exec-1", "step-1", "é" * 64)  # not ASCII: no TypeError


def test_nothing_is_read_or_made_until_a_credential_is_issued(tmp_path: Path) -> None:
    home = tmp_path / "home"
    credentials = HmacRegistrationCredentials(home)

    assert not credentials.verify("exec-1", "step-1", "0" * 64)  # no key: nobody holds one
    assert not home.exists()
    credentials.issue("exec-1", "step-1")
    assert (home / KEY_FILE_NAME).is_file()


@posix_only
def test_the_key_is_made_readable_by_its_owner_only_whatever_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0)
    try:
        HmacRegistrationCredentials(tmp_path).issue("exec-1", "step-1")
    finally:
        os.umask(previous)

    assert (tmp_path / KEY_FILE_NAME).stat().st_mode & 0o777 == 0o600
    assert [path.name for path in tmp_path.iterdir()] == [KEY_FILE_NAME]  # no temporary left


def test_the_process_that_loses_the_race_to_make_the_key_takes_the_winners(
    tmp_path: Path,
) -> None:
    winner = module._create_key(tmp_path / KEY_FILE_NAME)

    loser = module._create_key(tmp_path / KEY_FILE_NAME)

    assert loser == winner == (tmp_path / KEY_FILE_NAME).read_bytes()
    assert [path.name for path in tmp_path.iterdir()] == [KEY_FILE_NAME]


def test_threads_making_the_key_at_once_all_issue_the_same_credential(tmp_path: Path) -> None:
    start = threading.Barrier(8)
    tokens: list[str] = []

    def issue() -> None:
        credentials = HmacRegistrationCredentials(tmp_path)  # one per "process"
        start.wait()
        tokens.append(credentials.issue("exec-1", "step-1"))

    threads = [threading.Thread(target=issue) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(tokens) == 8 and len(set(tokens)) == 1


def test_processes_making_the_key_at_once_all_issue_the_same_credential(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; "
        "from adapters.local.registration_credentials import HmacRegistrationCredentials; "
        "print(HmacRegistrationCredentials(Path(sys.argv[1])).issue('exec-1', 'step-1'))"
    )
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    tokens = {process.communicate(timeout=60)[0].strip() for process in processes}

    assert all(process.returncode == 0 for process in processes)
    assert len(tokens) == 1 and "" not in tokens


@posix_only
def test_a_key_other_users_can_read_is_refused(tmp_path: Path) -> None:
    HmacRegistrationCredentials(tmp_path).issue("exec-1", "step-1")
    (tmp_path / KEY_FILE_NAME).chmod(0o644)

    with pytest.raises(InvalidInputError, match=r"open to other users \(mode 0644\).*chmod 600"):
        HmacRegistrationCredentials(tmp_path).issue("exec-1", "step-1")


def test_a_key_file_of_the_wrong_size_is_refused(tmp_path: Path) -> None:
    key = tmp_path / KEY_FILE_NAME
    key.write_bytes(b"short")
    key.chmod(0o600)

    with pytest.raises(InvalidInputError, match=r"not a registration key \(5 bytes\)"):
        HmacRegistrationCredentials(tmp_path).verify("exec-1", "step-1", "0" * 64)


@settings(max_examples=200, deadline=None)
@given(key=st.binary(min_size=32, max_size=32), run=st.text(min_size=1), step=st.text(min_size=1))
def test_the_one_shot_digest_is_the_hmac_of_the_ids(key: bytes, run: str, step: str) -> None:
    message = f"{run}:{step}".encode()
    assert module._sign(key, run, step) == hmac.new(key, message, hashlib.sha256).hexdigest()
