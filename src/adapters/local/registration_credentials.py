"""Per-step registration credentials of the local runner: HMAC-SHA256 under a key in WFX_HOME.

A step is given the HMAC of its own `workflowExecutionId:pipelineExecutionId`; the local bus
accepts a registration only with the one of the step its source names. So a step that knows
another run's ids (they are printed everywhere) still cannot register onto it, and an abort of
that run cannot be steered into stopping a process of the step's choosing. Code running as the
same OS user can read the key file itself: this separates honest steps, it is no sandbox.
"""

from __future__ import annotations

import hmac
import threading
from pathlib import Path

from adapters.secret_files import create_key, read_key

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
    return read_key(path, "registration key", "checks step credentials only with", _KEY_BYTES)


def _create_key(path: Path) -> bytes:
    return create_key(path, "registration key", "checks step credentials only with", _KEY_BYTES)
