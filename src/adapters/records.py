"""`build_*_record` / `parse_*_record`: the one place items get their seed-000 shape. The run's
rows are in run_records.py, its steps' (and attempts') in step_records.py, the steps' outputs in
output_records.py; here are what they share (dates, keys, the item budgets) and wfx's own tables.

Both storage adapters store exactly these dicts, in the shapes VAMS 2.6 writes its tables
(shared/notes/vams-items.md; docs/architecture.md lists each attribute and who writes it): VAMS's
names, types and empty defaults (`""`, `false`, `[]`: an attribute VAMS writes is never left out),
its dates as `YYYY-MM-DDTHH:MM:SSZ` (TABLE_DATE_FORMAT). wfx's own attributes use names VAMS does
not, and wfx's own tables keep dates with microseconds (DATE_FORMAT); both sort as text. Readers
take rows exactly as VAMS writes them, without any of wfx's attributes. Composite keys are plain
colon-joined values, and the sparse index keys
(`executionGroupId`, `from_pipeline_execution_id`, `outputDatabaseId:outputAssetId`) are absent,
never empty, when they have no value: DynamoDB rejects an empty indexed key and leaves an item
without one out of the index.

Every builder fits its item under DynamoDB's 400 KB limit (adapters/item_budget.py): a field
its budget names that does not fit is cut, flagged `<field>Truncated`, and its complete body is
returned with the item (`Record.offloads`) for the store to put in the object store first.
Records of keys and ids only (inputs, output files and artifacts, output results, migrated
input files, an attempt or an event with no error) are not fitted: every attribute is a key
part, an id, an S3 key or version id, a number, a status or a date, so DynamoDB's key limits
(2048 bytes a partition key, 1024 a sort key) and S3's (1024-byte keys and version ids, 63-byte
bucket names) bound such an item at a few KB (tests/unit/test_item_budget.py checks the worst).

A status, type or kind is written as `str(member)`: the domain's enums are StrEnums, whose
str() is their value (a C call; `.value` is two Python calls in 3.11, ~70 a warm run's
writes). tests/unit/test_records.py checks every enum a builder writes is one.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any, TypeVar

from pydantic import ValidationError

from adapters.item_budget import (
    KEPT_BYTES,
    Keep,
    Offloadable,
    RecordBudget,
    declare,
)
from adapters.item_budget import (
    Item as Item,
)
from domain.approvals import ApprovalGate
from domain.assets import AssetFile
from domain.errors import UnreadableRowError
from domain.execution import (
    RUN_LOG_TAIL_BYTES,
    UnreadableRow,
)
from domain.redaction import redact, redact_executable
from domain.workflow import (
    RetryPolicy,
    StepDefinition,
    WorkflowDefinition,
    WorkflowVersion,
)

# -- item budgets: which field of each record may be cut ------------------------------------------

SUB_EXECUTION_STOPS = "subExecutionStops"

# Fields with a cap are also written by updates that see only their own values (a status change,
# a step move, an attempt's close): the caps alone bound what those add to the row.
EXECUTION_BUDGET = declare(
    RecordBudget(
        "execution",
        (
            # the application cuts it first (run_log.fit_run_log), under its well-known key
            Offloadable("executionLog", Keep.TAIL, cap=RUN_LOG_TAIL_BYTES, restore=False),
            Offloadable("executionError", cap=KEPT_BYTES),
            Offloadable("executionCause", cap=KEPT_BYTES),
            Offloadable("abortCause", cap=KEPT_BYTES),
        ),
    )
)
# registeredLogs and registeredSubExecutions are bounded (50 entries each, lengths capped by
# RegisterPipelineExecution) but those caps count characters, and 4-byte characters could take
# the lists past the limit: a write of the lists fits the whole item (step_lists_attributes).
STEP_BUDGET = declare(
    RecordBudget(
        "step",
        (
            Offloadable("errorMessage", cap=KEPT_BYTES),
            Offloadable("registeredLogs"),
            Offloadable("registeredSubExecutions"),
            Offloadable(SUB_EXECUTION_STOPS),
        ),
    )
)
CONFIGURATION_BUDGET = declare(RecordBudget("configuration", (Offloadable("inputSelections"),)))
STEP_CONFIGURATION_BUDGET = declare(
    RecordBudget(
        "stepConfiguration",
        (Offloadable("inputFiles"), Offloadable("metadataInputs"), Offloadable("command")),
    )
)
STEP_INPUT_METADATA_BUDGET = declare(
    RecordBudget("stepInputMetadata", (Offloadable("metadata"), Offloadable("attributes")))
)
OUTPUT_METADATA_BUDGET = declare(RecordBudget("outputMetadata", (Offloadable("metadataValue"),)))
STEP_LOG_BUDGET = declare(
    RecordBudget(
        "stepLog", (Offloadable("resultLog", Keep.TAIL), Offloadable("errorLog", Keep.TAIL))
    )
)
ATTEMPT_BUDGET = declare(RecordBudget("attempt", (Offloadable("errorMessage", cap=KEPT_BYTES),)))

ALL_LIST_PARTITION = "execution"
WORKFLOW_LIST_PARTITION = "workflow"
# Below every character an Identifier may hold (`-` is the lowest), so the list index sorts by
# database id, then workflow id: with `:`, "demo2:a" would sort before "demo:b".
WORKFLOW_LIST_SEPARATOR = "!"
CONFIGURATION_RECORD_TYPE = "configuration"
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
TABLE_DATE_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


# A write formats the same few moments again and again (a decision's time goes on its row, its
# events, its attempt: 36 formats of 10 moments a warm run), so each UTC moment's texts are kept
# a while; equal moments have equal texts. Both texts of a moment are made at once (a step's
# stop goes on its row in whole seconds, on its attempt with microseconds). Cleared whole when
# full: no order to keep.
_FORMATTED: dict[datetime, str] = {}
_TABLE_FORMATTED: dict[datetime, str] = {}
_DAYS: dict[date, str] = {}  # a UTC day's `YYYY-MM-DDT`
_TWO_DIGITS = tuple(f"{n:02d}" for n in range(60))  # an hour's, a minute's or a second's text
_KEPT = 256


def format_date(moment: datetime) -> str:
    """DATE_FORMAT's text (`2024-03-04T09:30:00.000000Z`): a date is formatted for every row
    written, so not by strftime (three times the cost)."""
    text = _FORMATTED.get(moment)  # _formatted's lookup, without its call when kept
    return text if text is not None else _formatted(moment)[0]


def format_table_date(moment: datetime) -> str:
    """A VAMS table date, `2024-03-04T09:30:00Z`: whole seconds, what VAMS writes and parses."""
    text = _TABLE_FORMATTED.get(moment)
    return text if text is not None else _formatted(moment)[1]


def _formatted(moment: datetime) -> tuple[str, str]:
    """The moment's DATE_FORMAT and TABLE_DATE_FORMAT texts, put together from its day's kept
    text and the two-digit texts: half of isoformat's cost (which parses its format string on
    every call, and then formats the offset this drops)."""
    utc = moment if moment.tzinfo is UTC else moment.astimezone(UTC)
    day = utc.date()
    day_text = _DAYS.get(day)
    if day_text is None:
        if len(_DAYS) >= _KEPT:
            _DAYS.clear()
        day_text = _DAYS[day] = day.isoformat() + "T"
    seconds = (
        f"{day_text}{_TWO_DIGITS[utc.hour]}:{_TWO_DIGITS[utc.minute]}:{_TWO_DIGITS[utc.second]}"
    )
    # 1,000,000 + microseconds: seven digits, the last six zero-padded
    texts = f"{seconds}.{str(1_000_000 + utc.microsecond)[1:]}Z", seconds + "Z"
    # only aware moments are kept: a naive one's text depends on the local zone of the moment
    # it is read
    if moment.tzinfo is not None:
        if len(_FORMATTED) >= _KEPT:
            _FORMATTED.clear()
            _TABLE_FORMATTED.clear()
        _FORMATTED[moment], _TABLE_FORMATTED[moment] = texts
    return texts


def table_date(moment: datetime | None) -> str:
    """A VAMS date attribute: its text, or VAMS's empty value."""
    return format_table_date(moment) if moment is not None else ""


def parse_date(text: str | int | float | Decimal) -> datetime:
    if not isinstance(text, str):
        # seconds since the epoch, as a person or a script may put them (DynamoDB: a Decimal)
        if isinstance(text, bool):
            raise TypeError(f"a date cannot be {text!r}")
        return datetime.fromtimestamp(float(text), UTC)
    # fromisoformat reads our own format ~40x faster than strptime (lists parse many rows), and
    # gives our "Z" as UTC itself: astimezone only for a date written with another offset.
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is UTC:
        return moment
    # no offset (`datetime.utcnow().isoformat()`): UTC as every writer of these tables means it,
    # not the reading host's local time
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


class _UnreadableAttributeError(ValueError):
    """An attribute's stored value that is not what it should be, naming the attribute."""

    def __init__(self, attribute: str, message: str) -> None:
        super().__init__(message)
        self.attribute = attribute


class _WatchedItem(dict[str, Any]):
    """A row read again after its parser failed on it, noting each attribute the parser reads,
    in order: the one at fault is found among them (`_culprit`), once for every parser rather
    than at each of their reads. Only a failure pays for it."""

    def __init__(self, item: Item) -> None:
        super().__init__(item)
        self.read: list[str] = []

    def __getitem__(self, name: str) -> Any:
        self.read.append(name)
        return super().__getitem__(name)

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        self.read.append(name)
        return super().get(name, default)


_SHOWN_CHARACTERS = 60


def _shown(value: Any) -> str:
    """A stored value as a person mending the row reads it, redacted, then cut short (a cut
    secret may no longer look like one)."""
    shown = redact(str(value) if isinstance(value, int | float | Decimal) else repr(value))
    return shown if len(shown) <= _SHOWN_CHARACTERS else shown[: _SHOWN_CHARACTERS - 1] + "…"


def _held(value: Any) -> str:
    """What a stored value is, in words: `the text 'x'`, `the number 5`, `the list [1]`."""
    if isinstance(value, bool):
        kind = "boolean"
    elif isinstance(value, int | float | Decimal):
        kind = "number"
    elif isinstance(value, str):
        kind = "text"
    elif isinstance(value, list | tuple):
        kind, value = "list", list(value)
    elif isinstance(value, dict):
        kind = "map"
    else:
        kind = type(value).__name__
    return f"the {kind} {_shown(value)}"


# pydantic's words for a type, as a person mending a row by hand reads them
_PYDANTIC_TYPES = {
    "a valid string": "a text",
    "a valid integer": "a whole number",
    "a valid number": "a number",
    "a valid boolean": "true or false",
    "a valid list": "a list",
    "a valid tuple": "a list",
    "a valid dictionary": "a map",
}


def _expected(error: Exception, value: Any) -> str | None:
    """What wfx expects where `value` made the parser fail with `error`, from what it tried:
    of the value itself, or, where an entry of a list failed, of its entries."""
    text = str(error)
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        wanted = first["msg"].removeprefix("Input should be ")
        wanted = _PYDANTIC_TYPES.get(wanted, wanted)
        entry = first["input"] is not value and len(first["loc"]) > 1
        if entry and isinstance(value, list | tuple):
            return f"a list, each entry {wanted}"
        return wanted
    if isinstance(error, AttributeError) and error.name in ("get", "items", "keys"):
        return "a map" if error.obj is value else "a list of maps"
    if "int()" in text:
        return "a whole number"
    if isinstance(error, ArithmeticError) or "float" in text:
        return "a number"
    if "isoformat" in text or "a date cannot be" in text or "fromtimestamp" in text:
        return "a date"
    if "not iterable" in text or "indices must be" in text or "not subscriptable" in text:
        entry_failed = isinstance(value, list | tuple) and not (
            f"'{type(value).__name__}'" in text or text.startswith(type(value).__name__)
        )
        if entry_failed:
            return "a list of maps"
        return "a list" if "not iterable" in text else "a map"
    return None


_FAILURES = (KeyError, ValueError, TypeError, AttributeError, ArithmeticError)


def _failure(parse: Callable[[Item], Any], item: Item) -> Exception | None:
    try:
        parse(item)
    except _FAILURES as error:
        return error
    return None


def _culprit(parse: Callable[[Item], Any], item: _WatchedItem, error: Exception) -> str | None:
    """The attribute whose value the parser failed on: pydantic's refused input; else, of the
    attributes read, the last without which the parser does not fail as it did (a parser
    converts most values as it reads them, some later: a step's attempt after its size)."""
    present = list(dict.fromkeys(name for name in item.read if name in item))
    if isinstance(error, ValidationError):
        refused = error.errors()[0]["input"]
        for same in (
            lambda value: value is refused,
            lambda value: value == refused,
            lambda value: isinstance(value, str) and stored_status(value) == refused,
        ):
            found = next((name for name in present if same(dict.__getitem__(item, name))), None)
            if found is not None:
                return found
        # an entry of a list the parser read
        return next(
            (
                name
                for name in present
                if isinstance(entries := dict.__getitem__(item, name), list | tuple)
                and any(entry is refused for entry in entries)
            ),
            None,
        )
    last = item.read[-1] if item.read else None
    said = (type(error), str(error))
    for name in reversed(present):
        without = _failure(parse, {key: value for key, value in item.items() if key != name})
        if without is not None and (type(without), str(without)) == said:
            continue  # fails as it did without it: not this one
        if isinstance(without, KeyError) and without.args[0] == name and name != last:
            continue  # required, and read before the one at fault
        return name
    return last if last in item else None


def _problem(parse: Callable[[Item], Any], item: Item, error: Exception) -> tuple[str | None, str]:
    """The attribute at fault and what is wrong with it, in the words of the row, not of Python."""
    if isinstance(error, KeyError):
        return str(error.args[0]), f"{error.args[0]} is missing"
    if isinstance(error, _UnreadableAttributeError):
        return error.attribute, str(error)
    watched = _WatchedItem(item)
    again = _failure(parse, watched)
    attribute = None if again is None else _culprit(parse, watched, again)
    expected = None if attribute is None else _expected(error, item[attribute])
    if attribute is None or expected is None:
        return None, _python_problem(error)
    value = item[attribute]
    if expected == "a date":
        return attribute, f"{attribute} is not a date (stored: {_shown(value)})"
    return attribute, f"{attribute} holds {_held(value)}; wfx expects {expected}"


def _python_problem(error: Exception) -> str:
    """What an error no attribute can be named for says (a rule over several attributes)."""
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        return f"{field}: {first['msg']} (stored: {_shown(first['input'])})"
    return str(error)


def unreadable_row(
    table: str, key: str, parse: Callable[[Item], Any], item: Item, error: Exception
) -> UnreadableRowError:
    """Why the row `key` of `table` could not be read, in one line naming what is wrong: the
    attribute, what it holds and what wfx expects there (`parse` reads `item` again to find
    the attribute, where the error does not name it)."""
    attribute, what = _problem(parse, item, error)
    return UnreadableRowError(
        f"{table} row {key} cannot be read: {what}; mend or delete the row (another writer "
        "stored it)",
        table=table,
        key=key,
        attribute=attribute,
        problem=what,
    )


_Parsed = TypeVar("_Parsed")


def row_parser(
    table: str, *key: str
) -> Callable[[Callable[[Item], _Parsed]], Callable[[Item], _Parsed]]:
    """A parser whose failure on a row another writer shaped otherwise is `UnreadableRowError`
    naming `table` and the row's `key` attributes (its partition key, then its sort key where
    a partition holds several rows), never a traceback."""

    def wrap(parse: Callable[[Item], _Parsed]) -> Callable[[Item], _Parsed]:
        @functools.wraps(parse)
        def parse_row(item: Item) -> _Parsed:
            try:
                return parse(item)
            except _FAILURES as error:
                # a sort key's own value holds colons: " / " keeps the two apart
                named = " / ".join(str(item.get(name, "?")) for name in key)
                raise unreadable_row(table, named, parse, item, error) from None

        return parse_row

    return wrap


def readable_rows(
    parse: Callable[[Item], _Parsed],
    items: Iterable[Item],
    left_out: list[UnreadableRow] | None,
) -> list[_Parsed]:
    """Each row parsed; given `left_out`, a row that cannot be read is left out and named there
    (a read showing what it can of a run), else its `UnreadableRowError` is raised."""
    if left_out is None:
        return [parse(item) for item in items]
    parsed = []
    for item in items:
        try:
            parsed.append(parse(item))
        except UnreadableRowError as error:
            left_out.append(UnreadableRow.of(error))
    return parsed


_ROWS_LOG = logging.getLogger("wfx.rows")


def listed_rows(parse: Callable[[Item], _Parsed], items: Iterable[Item]) -> list[_Parsed]:
    """The rows of a list page, parsed: a row wfx cannot read is left out with a warning naming
    it (`wfx.rows`: stderr for the CLI, the service's log), so that one row another writer
    mangled does not hide every other (reading that row alone says the same in its refusal)."""
    parsed = []
    for item in items:
        try:
            parsed.append(parse(item))
        except UnreadableRowError as error:
            _ROWS_LOG.warning("warning: %s", UnreadableRow.of(error).list_note)
    return parsed


def stored_date(item: Item, name: str) -> datetime:
    """The date attribute `name` of a row; one that is not a date is named in the error."""
    value = item[name]
    try:
        return parse_date(value)
    except (ValueError, TypeError):
        raise _UnreadableAttributeError(name, f"{name} is not a date (stored: {value!r})") from None


def stored_status(value: Any) -> str:
    """A status as another writer stored it (`succeeded`, ` RUNNING`) in the spelling wfx's
    statuses have."""
    return value.strip().upper() if isinstance(value, str) else value


def join_key(*parts: str) -> str:
    return ":".join(parts)


def optional_date(item: Item, name: str) -> datetime | None:
    return stored_date(item, name) if item.get(name) else None


def put_present(item: Item, **values: Any) -> Item:
    """Set each value that is present; absent (None or "") stays absent, never an empty key."""
    for name, value in values.items():
        if value is not None and value != "":
            item[name] = value
    return item


def metadata_text(value: Any) -> str:
    """A metadata value as text: VAMS keeps numbers, maps and lists as they are."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


# -- wfx's own tables ---------------------------------------------------------------------------


def _step_entry(step: StepDefinition) -> Item:
    entry: Item = {
        "pipelineId": step.pipeline_id,
        "pipelineDatabaseId": step.pipeline_database_id,
        "executionType": step.execution_type.value,
        "inputFileArity": step.input_file_arity.value,
        "metadataInputs": list(step.metadata_inputs),
    }
    put_present(
        entry,
        # what the runner runs: only what redaction can take out without changing the program
        handler=redact_executable(step.handler) if step.handler else None,
        handlerPath=step.handler_path,
        functionName=step.function_name,
        jobQueue=step.job_queue,
        jobDefinition=step.job_definition,
    )
    if step.command is not None:
        entry["command"] = [redact_executable(part) for part in step.command]
    if step.wait_for_callback:
        entry["waitForCallback"] = True
    if step.retry is not None:
        entry["retry"] = {
            "maxAttempts": step.retry.max_attempts,
            "intervalSeconds": step.retry.interval_seconds,
            "backoffRate": step.retry.backoff_rate,
        }
    if step.approval is not None:
        entry["approval"] = {
            "approvers": list(step.approval.approvers),
            "message": redact(step.approval.message),
            "timeoutSeconds": step.approval.timeout_seconds,
        }
    return entry


def _parse_step_entry(entry: Item) -> StepDefinition:
    retry = entry.get("retry")
    approval = entry.get("approval")
    return StepDefinition(
        pipeline_id=entry["pipelineId"],
        pipeline_database_id=entry["pipelineDatabaseId"],
        execution_type=entry["executionType"],
        handler=entry.get("handler"),
        handler_path=entry.get("handlerPath"),
        command=tuple(entry["command"]) if "command" in entry else None,
        function_name=entry.get("functionName"),
        wait_for_callback=bool(entry.get("waitForCallback", False)),
        job_queue=entry.get("jobQueue"),
        job_definition=entry.get("jobDefinition"),
        input_file_arity=entry["inputFileArity"],
        metadata_inputs=tuple(entry.get("metadataInputs", [])),
        retry=None
        if retry is None
        else RetryPolicy(
            max_attempts=int(retry["maxAttempts"]),
            interval_seconds=int(retry["intervalSeconds"]),
            backoff_rate=float(retry["backoffRate"]),
        ),
        approval=None
        if approval is None
        else ApprovalGate(
            approvers=tuple(approval["approvers"]),
            message=approval.get("message", ""),
            timeout_seconds=int(approval["timeoutSeconds"]),
        ),
    )


def workflow_list_sort_key(database_id: str, workflow_id: str = "") -> str:
    """The list index's sort key of a workflow; with no workflow id, the prefix of a database."""
    return f"{database_id}{WORKFLOW_LIST_SEPARATOR}{workflow_id}"


def build_workflow_definition_record(definition: WorkflowDefinition) -> Item:
    item: Item = {
        "workflowDatabaseId:workflowId": definition.workflow_key,
        "workflowDatabaseId": definition.database_id,
        "workflowId": definition.workflow_id,
        "description": redact(definition.description),
        "createdDate": format_date(definition.created_at),
        "latestVersion": definition.latest_version,
        "workflowListPartition": WORKFLOW_LIST_PARTITION,
        "workflowListSortKey": workflow_list_sort_key(
            definition.database_id, definition.workflow_id
        ),
    }
    return put_present(item, ownerUserId=definition.owner)


def parse_workflow_definition_record(item: Item) -> WorkflowDefinition:
    return WorkflowDefinition(
        database_id=item["workflowDatabaseId"],
        workflow_id=item["workflowId"],
        owner=item.get("ownerUserId"),
        description=item.get("description", ""),
        created_at=parse_date(item["createdDate"]),
        latest_version=int(item["latestVersion"]),
    )


def recovered_definition_record(first: Item, latest: Item) -> Item:
    """The definition of a workflow published before definitions existed, from the items of its
    first and its highest version: created when the first was published, its owner unknown
    (wfx did not record publishers then)."""
    definition = WorkflowDefinition(
        database_id=first["workflowDatabaseId"],
        workflow_id=first["workflowId"],
        description=latest.get("description", ""),
        created_at=parse_date(first["publishedAt"]),
        latest_version=int(latest["workflowVersion"]),
    )
    return build_workflow_definition_record(definition)


def build_workflow_version_record(version: WorkflowVersion) -> Item:
    """The version's own item; its steps are items of their own (build_step_definition_records)."""
    return {
        "workflowDatabaseId:workflowId": version.workflow_key,
        "workflowVersion": version.version,
        "workflowDatabaseId": version.database_id,
        "workflowId": version.workflow_id,
        "description": redact(version.description),
        "publishedAt": format_date(version.published_at),
        "digest": version.digest,
        "stepCount": len(version.steps),
        **({"stateMachineArn": version.state_machine_arn} if version.state_machine_arn else {}),
    }


def step_definitions_key(database_id: str, workflow_id: str, version: int) -> str:
    """The partition of one version's step definitions."""
    return join_key(database_id, workflow_id, str(version))


def build_step_definition_records(version: WorkflowVersion) -> list[Item]:
    return [
        {
            "workflowDatabaseId:workflowId:workflowVersion": step_definitions_key(
                version.database_id, version.workflow_id, version.version
            ),
            "stepIndex": index,
            "stepDefinitionId": version.step_definition_id(index),
            "workflowDatabaseId": version.database_id,
            "workflowId": version.workflow_id,
            "workflowVersion": version.version,
            **_step_entry(step),
        }
        for index, step in enumerate(version.steps)
    ]


def parse_workflow_version_record(item: Item, step_items: Sequence[Item]) -> WorkflowVersion:
    """The version from its item and its step definitions' items (in any order)."""
    ordered = sorted(step_items, key=lambda step: int(step["stepIndex"]))
    return WorkflowVersion(
        database_id=item["workflowDatabaseId"],
        workflow_id=item["workflowId"],
        version=int(item["workflowVersion"]),
        description=item.get("description", ""),
        steps=tuple(_parse_step_entry(step) for step in ordered),
        published_at=parse_date(item["publishedAt"]),
        digest=item["digest"],
        state_machine_arn=item.get("stateMachineArn"),
    )


def parse_embedded_version_record(item: Item) -> WorkflowVersion:
    """A version item as wfx wrote it before step definitions were items: its steps inside it
    (`steps`). Read by the upgrade alone, which moves them out."""
    return parse_workflow_version_record(
        item, [{**step, "stepIndex": index} for index, step in enumerate(item["steps"])]
    )


def build_asset_file_record(asset_file: AssetFile) -> Item:
    return {
        "databaseId:assetId": join_key(asset_file.database_id, asset_file.asset_id),
        "fileKey": asset_file.file_key,
        "databaseId": asset_file.database_id,
        "assetId": asset_file.asset_id,
        "versionId": asset_file.version_id,
        "size": asset_file.size,
        "etag": asset_file.etag,
        "s3Bucket": asset_file.bucket,
        "assetRootS3Key": asset_file.asset_root_key,
        "modifiedAt": format_date(asset_file.modified_at),
        "metadata": dict(asset_file.metadata),
    }


def parse_asset_file_record(item: Item) -> AssetFile:
    return AssetFile(
        database_id=item["databaseId"],
        asset_id=item["assetId"],
        file_key=item["fileKey"],
        version_id=item["versionId"],
        size=int(item["size"]),
        etag=item["etag"],
        bucket=item["s3Bucket"],
        asset_root_key=item["assetRootS3Key"],
        modified_at=parse_date(item["modifiedAt"]),
        metadata=tuple(sorted(item.get("metadata", {}).items())),
    )
