"""Asset files: the inputs a run reads and the destination it writes to."""

import re
from collections.abc import Sequence

from pydantic import AwareDatetime, BaseModel, ConfigDict

from domain.errors import InvalidInputError
from domain.workflow import IDENTIFIER_MAX_LENGTH, IDENTIFIER_PATTERN, IDENTIFIER_RULE

_IDENTIFIER = re.compile(IDENTIFIER_PATTERN)


# Each id is a folder of the local object store (`assets/DB/ASSET/`), and a file system's folder
# name holds at most 255 bytes (NAME_MAX); an identifier is ASCII, one byte a character.
MAX_ASSET_ID_LENGTH = 255
# `DATABASE_ID:ID` is a partition key wherever wfx reads by it, and DynamoDB bounds one in UTF-8
# bytes: two ids within the character bound (256) of 4-byte characters make 2049. One rule for
# every store, so that a list that answers on SQLite does not fail on DynamoDB.
MAX_PARTITION_KEY_BYTES = 2048


def check_key_ids(database_id: str, other_id: str, field: str) -> None:
    """Ids read by their key (`DATABASE_ID:ID`): each within the character bound, the two
    within the key's bytes."""
    for part in (database_id, other_id):
        if len(part) > IDENTIFIER_MAX_LENGTH:
            raise InvalidInputError(
                f"{field}: ids must be at most {IDENTIFIER_MAX_LENGTH} characters, got {len(part)}"
            )
    problem = composite_key_problem(database_id, other_id)
    if problem is not None:
        raise InvalidInputError(f"{field}: {problem}")


def composite_key_problem(database_id: str, other_id: str) -> str | None:
    """Why `database_id:other_id` cannot be a partition key, or None."""
    # surrogatepass: a lone surrogate (an undecodable argv byte) is counted, not raised on
    size = len(f"{database_id}:{other_id}".encode("utf-8", "surrogatepass"))
    if size <= MAX_PARTITION_KEY_BYTES:
        return None
    return (
        f"the ids make a {size}-byte key DATABASE_ID:ID, at most {MAX_PARTITION_KEY_BYTES} "
        "bytes of UTF-8 (DynamoDB's partition key)"
    )


def check_asset_ids(database_id: str, asset_id: str, field: str) -> None:
    """The ids of an asset wfx writes files to, by an import or as a run's output: ids that go
    into object keys and table keys, so the same narrow rule as a workflow's ids, one character
    shorter so that each is a folder name on every store (a run moves between them)."""
    for name, value in (("database id", database_id), ("asset id", asset_id)):
        if len(value) > IDENTIFIER_MAX_LENGTH or not _IDENTIFIER.match(value):
            raise InvalidInputError(f"{field}: {name} {value!r} {IDENTIFIER_RULE}")
        if len(value) > MAX_ASSET_ID_LENGTH:
            raise InvalidInputError(
                f"{field}: {name} {value[:32]!r}... is {len(value)} characters, at most "
                f"{MAX_ASSET_ID_LENGTH} (a folder name in the local object store)"
            )


class AssetFile(BaseModel):
    """One file of an asset at one stored version."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    database_id: str
    asset_id: str
    file_key: str
    version_id: str
    size: int
    etag: str
    bucket: str
    asset_root_key: str
    modified_at: AwareDatetime
    metadata: tuple[tuple[str, str], ...] = ()


class AssetRef(BaseModel):
    """`DATABASE_ID/ASSET_ID`, with an optional file key after a further slash."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    database_id: str
    asset_id: str
    file_key: str | None = None

    @classmethod
    def parse(
        cls, text: str, field: str, allow_file: bool = True, shape: str | None = None
    ) -> "AssetRef":
        parts = text.split("/", 2)
        if shape is None:
            shape = "DATABASE_ID/ASSET_ID[/FILE_KEY]" if allow_file else "DATABASE_ID/ASSET_ID"
        if len(parts) < 2 or not parts[0] or not parts[1] or (len(parts) == 3 and not parts[2]):
            raise InvalidInputError(f"{field}: expected {shape}, got {text!r}")
        if len(parts) == 3 and not allow_file:
            raise InvalidInputError(f"{field}: expected {shape}, got {text!r}")
        for part in parts[:2]:
            if ":" in part:
                raise InvalidInputError(f"{field}: ids must not contain ':', got {text!r}")
        return cls(
            database_id=parts[0], asset_id=parts[1], file_key=parts[2] if len(parts) == 3 else None
        )

    @property
    def asset_key(self) -> str:
        return f"{self.database_id}:{self.asset_id}"

    def __str__(self) -> str:
        base = f"{self.database_id}/{self.asset_id}"
        return f"{base}/{self.file_key}" if self.file_key else base


# A file key is a path in both object stores: the local one keeps a key's versions in the folder
# `KEY.versions`, so no folder of a key ends so, and no name is longer than a file system takes
# (255 bytes) with that suffix.
VERSIONS_SUFFIX = ".versions"
MAX_FILE_KEY_NAME_BYTES = 255 - len(VERSIONS_SUFFIX)


def object_key_problem(key: str) -> str | None:
    """Why `key` cannot be a key of either object store (a relative path, the same in both so
    a key written to one can always be written to the other), or None."""
    parts = key.split("/")
    if "\x00" in key or any(part in ("", ".", "..") for part in parts):
        return "must be a relative path: names not empty, '.' or '..'"
    if any(part.endswith(VERSIONS_SUFFIX) for part in parts[:-1]):
        # keeps the local store's layout unambiguous: a `.versions` folder holds versions
        return f"must have no folder ending in {VERSIONS_SUFFIX!r} (the local store's)"
    return None


def file_key_problem(file_key: str) -> str | None:
    """Why `file_key` cannot name a file of an asset in wfx's object stores, or None."""
    problem = object_key_problem(file_key)
    if problem is not None:
        return problem
    try:
        encoded = file_key.encode("utf-8")
    except UnicodeEncodeError:  # a file system name in bytes that are not UTF-8
        return "must be UTF-8 text"
    if any(len(part) > MAX_FILE_KEY_NAME_BYTES for part in encoded.split(b"/")):
        return f"must have names of at most {MAX_FILE_KEY_NAME_BYTES} bytes of UTF-8"
    return None


# S3's longest object key. An asset file's key (`assets/DB/ASSET/KEY`) within it also keeps
# DynamoDB's sort keys that name the file (`DB:ASSET:KEY` of a run's inputs, `KEY` in the
# catalog) under their 1024 bytes; one rule for every store, so a run moves between them.
MAX_OBJECT_KEY_BYTES = 1024


def asset_file_key_problem(database_id: str, asset_id: str, file_key: str) -> str | None:
    """Why `file_key` cannot name a file of this asset in every store, or None."""
    problem = file_key_problem(file_key)
    if problem is not None:
        return problem
    size = len(asset_object_key(database_id, asset_id, file_key).encode("utf-8"))
    if size > MAX_OBJECT_KEY_BYTES:
        return (
            f"is too long: under {asset_root_key(database_id, asset_id)!r} it makes a key of "
            f"{size} bytes, at most {MAX_OBJECT_KEY_BYTES} bytes (S3's object keys, DynamoDB's "
            "sort keys)"
        )
    return None


# A file's metadata lives on its catalog row, which DynamoDB holds to 400 KB: tags, not bodies.
MAX_METADATA_KEY_CHARS = 256
MAX_FILE_METADATA_BYTES = 64 * 1024


def file_metadata_problem(metadata: Sequence[tuple[str, str]]) -> str | None:
    """Why `metadata` cannot be kept on an asset file's row, or None."""
    size = 0
    for key, value in metadata:
        if not 1 <= len(key) <= MAX_METADATA_KEY_CHARS:
            return f"key {key[:40]!r}: must be 1 to {MAX_METADATA_KEY_CHARS} characters"
        size += len(key.encode("utf-8", "surrogatepass")) + len(
            value.encode("utf-8", "surrogatepass")
        )
    if size > MAX_FILE_METADATA_BYTES:
        return f"{size} bytes of keys and values, at most {MAX_FILE_METADATA_BYTES} bytes a file"
    return None


def asset_root_key(database_id: str, asset_id: str) -> str:
    """The object-store prefix of an asset's files."""
    return f"assets/{database_id}/{asset_id}/"


def asset_object_key(database_id: str, asset_id: str, file_key: str) -> str:
    return f"{asset_root_key(database_id, asset_id)}{file_key}"
