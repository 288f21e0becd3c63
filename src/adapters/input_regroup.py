"""A run an earlier wfx launched, its inputs as the current wfx writes them.

wfx 0.1/0.2 wrote one row per resolved file in WorkflowExecutionInputsStorageTable, keyed by the
asset-relative file key; VAMS 2.6 writes one row per selection there, its key "/"-led with the
asset root. The run's configuration row still names its selections (`inputSelections`), so its
file rows regroup into selection rows, and each file row moves, whole, to wfx's own
WfxResolvedInputFilesTable. Pure: the stores read a run's rows, write what this returns, then
delete the earlier rows; the regrouped rows are the same each time, so a run cut short is
resumed by running again, and once no earlier row is left there is nothing to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from adapters.item_budget import Item
from adapters.run_records import build_input_selection_record, parse_execution_input_record
from domain.assets import AssetRef
from domain.errors import InvalidInputError
from domain.execution import ExecutionInput, InputSelection

WORKFLOW_KEY = "workflowDatabaseId:workflowId"
INPUT_SELECTIONS = "inputSelections"


def is_earlier_input_row(item: Item) -> bool:
    """A row an earlier wfx wrote: wfx's composite workflow key (VAMS writes none) and a file
    key with no leading "/" (every selection row's has one)."""
    return WORKFLOW_KEY in item and not str(item.get("inputAssetFileKey", "")).startswith("/")


@dataclass(frozen=True)
class RegroupedInputs:
    """One run's rows: the selection rows (VAMS's table) and the resolved files (wfx's)."""

    selections: tuple[Item, ...]
    resolved: tuple[Item, ...]


def _parsed_selections(texts: Sequence[str]) -> list[AssetRef]:
    refs = []
    for index, text in enumerate(texts):
        try:
            refs.append(AssetRef.parse(text, f"inputSelections[{index}]"))
        except InvalidInputError:
            continue  # not one wfx wrote: its files become selections of their own
    return refs


def _chosen_by(ref: AssetRef, row: ExecutionInput) -> bool:
    if (ref.database_id, ref.asset_id) != (row.database_id, row.asset_id):
        return False
    key = ref.file_key
    return (
        key is None
        or key == row.input_asset_file_key
        or (key.endswith("/") and row.input_asset_file_key.startswith(key))
    )


def _selection_of(ref: AssetRef, row: ExecutionInput) -> InputSelection:
    """VAMS's row for `ref`, located by a file it chose: a single file keeps its version."""
    single = ref.file_key is not None and not ref.file_key.endswith("/")
    return InputSelection.of(row, ref.file_key, row.version_id if single else "")


def regroup_inputs(rows: Sequence[Item], input_selections: Sequence[str]) -> RegroupedInputs:
    """`rows`: a run's earlier input rows; `input_selections`: its configuration's selections
    (none for a run with no configuration row: each file is then a selection of its own)."""
    refs = _parsed_selections(input_selections)
    parsed = [parse_execution_input_record(item) for item in rows]
    selections: dict[str, InputSelection] = {}
    # every selection that chose a file, as the launch wrote one row for each
    for ref in refs:
        chosen = next((row for row in parsed if _chosen_by(ref, row)), None)
        if chosen is not None:
            selection = _selection_of(ref, chosen)
            selections.setdefault(
                f"{selection.asset_key}:{selection.input_asset_file_key}", selection
            )
    resolved = []
    for item, row in zip(rows, parsed, strict=True):
        # the first selection naming a file is the one it came from, as a launch resolves them
        origin = next((r for r in refs if _chosen_by(r, row)), None) or AssetRef(
            # a file no selection names: a selection of its own
            database_id=row.database_id,
            asset_id=row.asset_id,
            file_key=row.input_asset_file_key,
        )
        selection = _selection_of(origin, row)
        selections.setdefault(f"{selection.asset_key}:{selection.input_asset_file_key}", selection)
        # the earlier item as it was (its exact date text included), with its selection named
        resolved.append({**item, "selectionKey": selection.input_asset_file_key})
    return RegroupedInputs(
        selections=tuple(build_input_selection_record(s) for s in selections.values()),
        resolved=tuple(resolved),
    )
