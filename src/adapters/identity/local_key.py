"""The local signing key: an Ed25519 key in WFX_HOME that signs the tokens `wfx auth token`
issues, made on first use, readable by its owner only (mode 0600)."""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from adapters.secret_files import create_once, open_own
from domain.errors import InvalidInputError

KEY_FILE_NAME = "token-signing-key.pem"


class LocalSigningKey:
    """The key pair, loaded (or made) on first use. Two processes making it at once agree on
    one: each writes a whole private file and hard-links it into place, which never replaces a
    file already there, so the loser reads the winner's key."""

    def __init__(self, home: Path) -> None:
        self._path = Path(home) / KEY_FILE_NAME
        self._key: Ed25519PrivateKey | None = None
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self._path

    def private_key(self) -> Ed25519PrivateKey:
        with self._lock:
            if self._key is None:
                try:
                    self._key = _read(self._path)
                except FileNotFoundError:
                    self._key = _create(self._path)
            return self._key

    def public_key(self) -> Ed25519PublicKey:
        return self.private_key().public_key()

    @property
    def key_id(self) -> str:
        """The `kid` of its tokens: a digest of the public key, so a new key is a new kid."""
        raw = self.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        return hashlib.sha256(raw).hexdigest()[:16]


def _read(path: Path) -> Ed25519PrivateKey:
    with open(open_own(path, "token signing key", "signs only with"), "rb") as file:
        mode = os.fstat(file.fileno()).st_mode
        pem = file.read()
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        # the path is not followed by ': ', which redaction takes for a secret after its name
        raise InvalidInputError(
            f"the token signing key {path} is open to other users (mode "
            f"{stat.S_IMODE(mode):04o}); `chmod 600` it, or delete it to have a new one made "
            "(tokens it signed stop verifying)"
        )
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except ValueError:
        key = None
    if not isinstance(key, Ed25519PrivateKey):
        raise InvalidInputError(
            f"the token signing key {path} is not an Ed25519 private key in PEM; delete it to "
            "have one made"
        )
    return key


def _create(path: Path) -> Ed25519PrivateKey:
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    # another process made it first: its key is the key
    return key if create_once(path, pem) else _read(path)
