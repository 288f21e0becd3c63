"""Per-step registration credentials of the local runner: HMAC-SHA256 under a key in WFX_HOME.

A step is given the HMAC of its own `workflowExecutionId:pipelineExecutionId`; the local bus
accepts a registration only with the one of the step its source names. So a step that knows
another run's ids (they are printed everywhere) still cannot register onto it, and an abort of
that run cannot be steered into stopping a process of the step's choosing. Code running as the
same OS user can read the key file itself: this separates honest steps, it is no sandbox.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
import threading
from pathlib import Path

from adapters.secret_files import create_once, open_own
from domain.errors import InvalidInputError

KEY_FILE_NAME = "registration.key"
_KEY_BYTES = 32


class HmacRegistrationCredentials:
    """Issues and checks the credentials; the key file is created on the first issue, mode 0600.

    Two processes creating it at once agree on one key: each writes a whole private file and
    hard-links it into place, which never replaces a file already there, so the loser reads the
    winner's key. Nothing reads the key until a credential is issued or checked.
    """

    def __init__(self, home: Path) -> None:
        self._path = Path(home) / KEY_FILE_NAME
        self._key: bytes | None = None
        self._lock = threading.Lock()

    @property
    def key_path(self) -> Path:
        return self._path

    def issue(self, workflow_execution_id: str, pipeline_execution_id: str) -> str:
        """The credential of one step, as hex; the same step always gets the same one."""
        key = self._secret(create=True)
        assert key is not None  # made when missing
        return _sign(key, workflow_execution_id, pipeline_execution_id)

    def verify(self, workflow_execution_id: str, pipeline_execution_id: str, token: str) -> bool:
        """True only for the credential `issue` gives this step, compared in constant time."""
        key = self._secret(create=False)
        if key is None:
            return False  # no key yet: no step has been given a credential
        expected = _sign(key, workflow_execution_id, pipeline_execution_id)
        # bytes, not str: compare_digest refuses a non-ASCII str, and a token is user input
        return hmac.compare_digest(expected.encode(), token.encode("utf-8", "replace"))

    def _secret(self, create: bool) -> bytes | None:
        with self._lock:
            if self._key is None:
                try:
                    self._key = _read_key(self._path)
                except FileNotFoundError:
                    if create:
                        self._key = _create_key(self._path)
            return self._key


def _sign(key: bytes, workflow_execution_id: str, pipeline_execution_id: str) -> str:
    # An execution id is an execution name, which holds no ":" (seed 001): the message is unique.
    message = f"{workflow_execution_id}:{pipeline_execution_id}".encode()
    # the one-shot C digest: the same HMAC as hmac.new(...).hexdigest(), without its objects
    return hmac.digest(key, message, "sha256").hex()


def _read_key(path: Path) -> bytes:
    with open(
        open_own(path, "registration key", "checks step credentials only with"), "rb"
    ) as file:
        mode = os.fstat(file.fileno()).st_mode
        key = file.read(_KEY_BYTES + 1)
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InvalidInputError(
            f"{path}: the registration key is open to other users (mode "
            f"{stat.S_IMODE(mode):04o}); `chmod 600` it, or delete it to have a new one made"
        )
    if len(key) != _KEY_BYTES:
        raise InvalidInputError(
            f"{path}: not a registration key ({len(key)} bytes); delete it to have one made"
        )
    return key


def _create_key(path: Path) -> bytes:
    key = secrets.token_bytes(_KEY_BYTES)
    # another process made it first: its key is the key
    return key if create_once(path, key) else _read_key(path)
