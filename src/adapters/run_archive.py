"""What both RunArchive adapters share: which items make up a run, in which order, and how an
import and a verification treat each one. The stores differ only in the primitives below.

The store-neutral form of an item is the plain JSON the record builders make (adapters/records.py)
and the SQLite store keeps as it is: strings, numbers (ints, floats), booleans, null, lists and
maps; a sparse key is absent, never null or empty. The DynamoDB store reads its items back into
exactly these values (adapters/dynamodb/codec.py), so an item exported from one store and
imported into the other is stored equal, and compares equal on the way back.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from functools import partial
from typing import Any

from adapters.item_budget import OBJECT_KEY_SUFFIX
from adapters.records import Item, format_table_date
from adapters.tables import (
    RUN_ROW_TABLES,
    STEP_ROW_TABLES,
    TABLE_SPECS,
    ResourceKeys,
)
from application.ports.files import ObjectStore
from application.ports.migration import (
    ArchivedBody,
    ArchivedItem,
    ArchivedRun,
    ImportedRun,
    KeptRun,
    ListedRuns,
    RunRefusedError,
)
from domain.errors import ExecutionNotFoundError
from domain.execution import execution_object_prefix

EXECUTION_ID = "workflowExecutionId"
STEP_ID = "pipelineExecutionId"
WORKFLOW_KEY = "workflowDatabaseId:workflowId"
START = "executionStartDate"
# Runs of the global list read at a time by an export: ~100 B each while its page is walked
RUN_PAGE = 1000
# The tables an archive may hold items of: a run's own, and the definitions and asset files
# its rows name. Not the migration's read source (seed 000 keeps it where it is) nor the
# authorization table (roles are a deployment's own, not a run's).
ARCHIVED_TABLES = frozenset(
    {
        ResourceKeys.WORKFLOW_EXECUTIONS,
        *RUN_ROW_TABLES,
        *STEP_ROW_TABLES,
        ResourceKeys.WORKFLOW_DEFINITIONS,
        ResourceKeys.WORKFLOW_VERSIONS,
        ResourceKeys.STEP_DEFINITIONS,
        ResourceKeys.ASSET_FILES,
    }
)
# Items a run names but does not own: exported with the first run that names them.
SHARED_TABLES = frozenset(
    {
        ResourceKeys.WORKFLOW_DEFINITIONS,
        ResourceKeys.WORKFLOW_VERSIONS,
        ResourceKeys.STEP_DEFINITIONS,
        ResourceKeys.ASSET_FILES,
    }
)
# The run's asset partitions: what it read, and the asset it wrote to.
ASSET_KEYS = (
    (ResourceKeys.WORKFLOW_EXECUTION_INPUTS, "databaseId:assetId"),
    (ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION, "outputDatabaseId:outputAssetId"),
)


def key_of(table: ResourceKeys, item: Mapping[str, Any]) -> Item:
    return {a.name: item[a.name] for a in TABLE_SPECS[table].key_attributes}


def describe_key(table: ResourceKeys, item: Mapping[str, Any]) -> str:
    key = key_of(table, item)
    return f"{table.value} " + " ".join(f"{name}={value!r}" for name, value in key.items())


def body_keys(workflow_execution_id: str, items: Sequence[Mapping[str, Any]]) -> list[str]:
    """The object keys of the bodies the run's items name (each once, in order)."""
    prefix = f"{execution_object_prefix(workflow_execution_id)}bodies/"
    keys = (
        value
        for item in items
        for name, value in item.items()
        if name.endswith(OBJECT_KEY_SUFFIX) and isinstance(value, str) and value.startswith(prefix)
    )
    return list(dict.fromkeys(keys))


class RunArchiveRows:
    """export/import/compare over four primitives each store implements."""

    def __init__(self, objects: ObjectStore | None, page_size: int = RUN_PAGE) -> None:
        self._objects = objects
        self._page_size = page_size

    # -- the primitives ---------------------------------------------------------------------

    def _newest_start(self, since: str) -> str | None:
        """The latest start date of the global list's runs started at or after `since`."""
        raise NotImplementedError

    def _count_runs(self, since: str, until: str) -> int:
        raise NotImplementedError

    def _run_ids_oldest_first(self, since: str, until: str) -> Iterator[str]:
        """The global list's runs started from `since` to `until` (both included), by start
        date then id, read a page at a time as the iterator is walked."""
        raise NotImplementedError

    def _partition(self, table: ResourceKeys, value: str) -> list[Item]:
        """Every item of the table's partition `value`."""
        raise NotImplementedError

    def _partitions(self, wanted: Sequence[tuple[ResourceKeys, str]]) -> list[list[Item]]:
        """Each partition's items, in the order asked (a store whose reads wait on a network
        sends them at once)."""
        return [self._partition(table, value) for table, value in wanted]

    def _steps(self, workflow_execution_id: str) -> list[Item]:
        raise NotImplementedError

    def _get(self, table: ResourceKeys, key: Mapping[str, Any]) -> Item | None:
        raise NotImplementedError

    def _put_if_absent(self, table: ResourceKeys, item: Mapping[str, Any]) -> bool:
        """Put the item unless its key is taken (False: taken, nothing written)."""
        raise NotImplementedError

    def _put_version_if_absent(
        self, table: ResourceKeys, item: Mapping[str, Any], version: int | float
    ) -> bool | None:
        """Put a version's item unless its key is taken (False) or, in the same write, the
        workflow's stored definition has a lower `latestVersion` than `version` (None)."""
        raise NotImplementedError

    def _delete(self, table: ResourceKeys, key: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def _claimed(self, run: ArchivedRun) -> AbstractContextManager[None]:
        """Held around the run's import, so that no other import of it writes between this
        one's looks and its writes (SQLite's write transaction holds the whole import already)."""
        return nullcontext()

    def _keep_claim(self) -> None:
        """Before each write of the claimed run's: its claim renewed when due."""

    def _part_stored_without_main_row(self, run: ArchivedRun) -> bool:
        """Whether an import cut short left part of the run: no main row, but the first item of
        its own an import writes (the same key in every state of the run: its first step)."""
        main = _main_row_of(run)
        if main is None or self._get(_MAIN, key_of(_MAIN, main.item)) is not None:
            return False
        first = next((i for i in run.items if not i.shared and i is not main), None)
        if first is None:
            return False
        table = ResourceKeys[first.table]
        return self._get(table, key_of(table, first.item)) is not None

    # -- export -----------------------------------------------------------------------------

    def list_runs(self, since: datetime | None) -> ListedRuns:
        since_text = format_table_date(since) if since is not None else ""
        # the newest start now bounds the walk: runs launched while it goes are the next
        # export's, and a busy store's walk ends
        until = self._newest_start(since_text)
        if until is None:
            return ListedRuns(iter(()), lambda: 0)
        return ListedRuns(
            self._run_ids_oldest_first(since_text, until),
            partial(self._count_runs, since_text, until),
        )

    def export_run(self, workflow_execution_id: str) -> ArchivedRun:
        main = self._partition(ResourceKeys.WORKFLOW_EXECUTIONS, workflow_execution_id)
        if not main:
            raise ExecutionNotFoundError(workflow_execution_id)
        steps = self._steps(workflow_execution_id)
        rows: list[tuple[ResourceKeys, Item]] = []
        rows += self._definitions(main[0])
        # each partition the run has, sent at once where the store can
        run_keyed: list[ResourceKeys] = [
            t for t in RUN_ROW_TABLES if t is not ResourceKeys.PIPELINE_EXECUTIONS
        ]
        step_keyed = [(table, str(step[STEP_ID])) for table in STEP_ROW_TABLES for step in steps]
        found = self._partitions(
            [(table, workflow_execution_id) for table in run_keyed] + step_keyed
        )
        run_rows: dict[ResourceKeys, list[Item]] = dict(
            zip(run_keyed, found[: len(run_keyed)], strict=True)
        )
        assets = dict.fromkeys(
            item[attribute]
            for table, attribute in ASSET_KEYS
            for item in run_rows.get(table, ())
            if isinstance(item.get(attribute), str)
        )
        rows += [(ResourceKeys.ASSET_FILES, i) for a in assets for i in self._asset_files(a)]
        rows += [(ResourceKeys.PIPELINE_EXECUTIONS, step) for step in steps]
        rows += [
            (table, item)
            for (table, _), items in zip(step_keyed, found[len(run_keyed) :], strict=True)
            for item in items
        ]
        rows += [(table, item) for table, items in run_rows.items() for item in items]
        rows += [(ResourceKeys.WORKFLOW_EXECUTIONS, item) for item in main]
        items = tuple(
            ArchivedItem(table.value, item, shared=table in SHARED_TABLES) for table, item in rows
        )
        keys = body_keys(workflow_execution_id, [item for _, item in rows])
        return ArchivedRun(workflow_execution_id, items, tuple(self._bodies_stored(keys)))

    def _bodies_stored(self, keys: Sequence[str]) -> Iterator[ArchivedBody]:
        # a body gone (a delete cut short after the objects) leaves its rows as reads show them:
        # the cut field, still flagged; the archive carries them so
        for key in keys:
            try:
                yield ArchivedBody(key, self._objects_or_fail().read_bytes(key))
            except FileNotFoundError:
                continue

    def _definitions(self, main: Item) -> list[tuple[ResourceKeys, Item]]:
        workflow_key, version = main[WORKFLOW_KEY], main.get("workflowVersion")
        found: list[tuple[ResourceKeys, Item]] = []
        if version is None:
            return found  # VAMS launched it: its workflow is VAMS's, in no table of wfx's
        definition = self._get(ResourceKeys.WORKFLOW_DEFINITIONS, {WORKFLOW_KEY: workflow_key})
        if definition is not None:
            found.append((ResourceKeys.WORKFLOW_DEFINITIONS, definition))
        version_key = {WORKFLOW_KEY: workflow_key, "workflowVersion": version}
        version_item = self._get(ResourceKeys.WORKFLOW_VERSIONS, version_key)
        if version_item is not None:
            found.append((ResourceKeys.WORKFLOW_VERSIONS, version_item))
        steps = self._partition(ResourceKeys.STEP_DEFINITIONS, f"{workflow_key}:{version}")
        found += [(ResourceKeys.STEP_DEFINITIONS, step) for step in steps]
        return found

    def _asset_files(self, asset_key: str) -> list[Item]:
        return self._partition(ResourceKeys.ASSET_FILES, asset_key)

    def _objects_or_fail(self) -> ObjectStore:
        if self._objects is None:
            raise RuntimeError("this archive was built without the store's object store")
        return self._objects

    # -- import -----------------------------------------------------------------------------

    def import_run(self, run: ArchivedRun) -> ImportedRun:
        with self._claimed(run):
            return self._import_claimed(run)

    def _import_claimed(self, run: ArchivedRun) -> ImportedRun:
        self._refuse_steps_of_other_runs(run)
        kept = self._stored_otherwise(run)
        if kept is not None:
            # what the run names but does not own (a definition, an asset's files) is carried
            # with the first run naming it: the file's later runs need it
            shared = tuple(i for i in run.items if i.shared)
            imported = self._put_each(shared, run.workflow_execution_id)
            return ImportedRun(imported.written, imported.unchanged, (*imported.conflicts, kept))
        uploaded: list[str] = []
        for body in run.bodies:
            self._keep_claim()
            # content-addressed keys (item_budget): a body stored under its key is this body
            if not self._has_body(body.key):
                self._objects_or_fail().put_bytes(body.key, body.data)
                if _names_its_content(body.key, body.data):
                    uploaded.append(body.key)
        try:
            # the archive's order: the main row last, so a run is listed only once it is whole
            return self._put_each(run.items, run.workflow_execution_id)
        except ClaimLapsedError:
            raise  # the import that took the run over may name them: they stay
        except RunRefusedError:
            # under the run's own prefix, absent before, and no other import of the run wrote
            # meanwhile (the claim, or SQLite's transaction): nothing stored names them now.
            # Each key ends in its body's digest, so a delete of it as a prefix takes that body
            # alone (a key of a file's own making, which could be a prefix of others, is left)
            for key in uploaded:
                self._objects_or_fail().delete_prefix(key)
            raise

    def _put_each(self, items: Sequence[ArchivedItem], run_id: str) -> ImportedRun:
        written = unchanged = 0
        conflicts: list[str] = []
        steps: list[Item] = []  # the step rows this import wrote, taken back if it is refused
        for archived in items:
            table = ResourceKeys[archived.table]
            self._keep_claim()
            put = self._put(table, archived.item)
            if put is None:
                conflicts.append(self._past_latest(table, archived.item))
                continue
            if put:
                written += 1
                if table is ResourceKeys.PIPELINE_EXECUTIONS:
                    steps.append(key_of(table, archived.item))
                    self._refuse_a_step_another_run_took(archived, run_id, steps)
                continue
            stored = self._get(table, key_of(table, archived.item))
            if stored == dict(archived.item):
                unchanged += 1
            else:
                conflicts.append(f"{describe_key(table, archived.item)}: stored otherwise, kept")
        return ImportedRun(written, unchanged, tuple(conflicts))

    def _put(self, table: ResourceKeys, item: Mapping[str, Any]) -> bool | None:
        """A version (or its steps) is not written past the latest of the workflow stored here
        (another workflow of that name, or one this store has not caught up with): a publish
        claims the number after the latest; stored, it would refuse every publish. Checked by
        the write itself, so a publish landing after an earlier look is not covered over."""
        version = item.get("workflowVersion")
        if table in _VERSIONED and isinstance(version, (int, float)):
            return self._put_version_if_absent(table, item, version)
        return self._put_if_absent(table, item)

    def _past_latest(self, table: ResourceKeys, item: Mapping[str, Any]) -> str:
        workflow = workflow_key_of(item)
        definition = self._get(ResourceKeys.WORKFLOW_DEFINITIONS, definition_key(item))
        latest = definition.get("latestVersion") if definition is not None else None
        return (
            f"{describe_key(table, item)}: version {item['workflowVersion']} is past the latest "
            f"of {workflow} stored here ({latest}): not written, so that the next publish can "
            "take its number"
        )

    def _refuse_a_step_another_run_took(
        self, archived: ArchivedItem, run_id: str, written: Sequence[Item]
    ) -> None:
        """After the step's write, as another run's import may have written one of the same id
        since `_refuse_steps_of_other_runs` looked (DynamoDB cannot make a write conditional on
        a partition holding no other item): of two such imports, at most one goes on."""
        owners = self._step_owners(archived.item[STEP_ID], run_id)
        if not owners:
            return
        for key in written:  # keyed by this run: no other run's import writes them
            self._delete(ResourceKeys.PIPELINE_EXECUTIONS, key)
        raise RunRefusedError(archived.line, _taken_step(archived.item[STEP_ID], owners[0]))

    def _step_owners(self, step_id: str, run_id: str) -> list[str]:
        stored = self._partition(ResourceKeys.PIPELINE_EXECUTIONS, step_id)
        return [str(i[EXECUTION_ID]) for i in stored if i[EXECUTION_ID] != run_id]

    def _stored_otherwise(self, run: ArchivedRun) -> KeptRun | None:
        """The conflict, when the store holds the run with another main row: another state of
        the run (an earlier export, or one this store moved on), whose rows the file's must not
        be mixed into (events past its end, steps it never had). A run with no main row yet (an
        import cut short) or an equal one is imported, each missing item written."""
        main = _main_row_of(run)
        if main is None:
            return None
        stored = self._get(ResourceKeys.WORKFLOW_EXECUTIONS, key_of(_MAIN, main.item))
        if stored is None or stored == dict(main.item):
            return None
        owned = sum(1 for i in run.items if not i.shared)
        return KeptRun(describe_key(_MAIN, main.item), owned)

    def _refuse_steps_of_other_runs(self, run: ArchivedRun) -> None:
        for archived in run.items:
            if archived.table != ResourceKeys.PIPELINE_EXECUTIONS.value:
                continue
            owners = self._step_owners(archived.item[STEP_ID], run.workflow_execution_id)
            if owners:
                raise RunRefusedError(archived.line, _taken_step(archived.item[STEP_ID], owners[0]))

    def _has_body(self, key: str) -> bool:
        objects = self._objects_or_fail()
        return any(stored.key == key for stored in objects.list_latest(key))

    # -- verify -----------------------------------------------------------------------------

    def differences(self, run: ArchivedRun) -> list[str]:
        found: list[str] = []
        for archived in run.items:
            table = ResourceKeys[archived.table]
            where = f"line {archived.line}: " if archived.line else ""
            stored = self._get(table, key_of(table, archived.item))
            if stored is None:
                found.append(f"{where}{describe_key(table, archived.item)}: not stored")
            elif stored != dict(archived.item):
                names = sorted(
                    name
                    for name in stored.keys() | archived.item.keys()
                    if stored.get(name, _ABSENT) != archived.item.get(name, _ABSENT)
                )
                found.append(
                    f"{where}{describe_key(table, archived.item)}: differs in {', '.join(names)}"
                )
        for body in run.bodies:
            where = f"line {body.line}: " if body.line else ""
            if not self._has_body(body.key):
                found.append(f"{where}object {body.key}: not stored")
            elif self._objects_or_fail().read_bytes(body.key) != body.data:
                found.append(f"{where}object {body.key}: differs")
        return found


class ClaimLapsedError(RunRefusedError):
    """The import's claim on its run lapsed and another import took the run over."""


def _names_its_content(key: str, data: bytes) -> bool:
    """Whether `key` ends in the digest item_budget names `data` by."""
    return key.endswith("/" + hashlib.sha256(data).hexdigest()[:32])


def _main_row_of(run: ArchivedRun) -> ArchivedItem | None:
    return next((i for i in reversed(run.items) if i.table == _MAIN.value), None)


def state_digest(run: ArchivedRun) -> str:
    """Which state of the run an archive holds: a digest of its main row (another export of
    the run taken later holds another main row: a status, a stop date)."""
    main = _main_row_of(run)
    text = json.dumps(main.item if main is not None else None, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def workflow_key_of(item: Mapping[str, Any]) -> str:
    return f"{item['workflowDatabaseId']}:{item['workflowId']}"


def definition_key(item: Mapping[str, Any]) -> Item:
    """The key of the definition of the workflow a version's (or step definition's) item names."""
    return {WORKFLOW_KEY: workflow_key_of(item)}


def _taken_step(step_id: str, owner: str) -> str:
    return f"item.{STEP_ID}: {step_id!r} is stored as a step of run {owner!r}"


_ABSENT = object()
_VERSIONED = frozenset({ResourceKeys.WORKFLOW_VERSIONS, ResourceKeys.STEP_DEFINITIONS})
_MAIN = ResourceKeys.WORKFLOW_EXECUTIONS
