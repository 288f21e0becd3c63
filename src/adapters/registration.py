"""The stored shape of a step's lists (registered sub-executions and logs, stop records) and
the row version guarding their writes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.item_budget import Record
from adapters.records import STEP_BUDGET, SUB_EXECUTION_STOPS, Item
from adapters.step_records import build_pipeline_execution_record

if TYPE_CHECKING:  # only a run's write names a step's lists: a list imports none of its writes
    from domain.run_write import StepLists

REGISTRATION_VERSION = "registrationVersion"


def registration_version(item: Item) -> int:
    """The counter guarding a step's lists (domain.run_write.StepLists); absent on a row whose
    lists were never written."""
    return int(item.get(REGISTRATION_VERSION, 0))


# by StepListsKind's values (a StrEnum member finds its value's entry)
_LIST_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "registered": ("registeredSubExecutions", "registeredLogs"),
    "stops": (SUB_EXECUTION_STOPS,),
}


def list_sizes_condition(lists: StepLists) -> tuple[str, dict[str, str], dict[str, int | bool]]:
    """A DynamoDB condition that each list still has the entries it had when read (an append by
    VAMS's registration Lambda, which moves no version, refuses the write), unless its stored
    copy was cut (the row keeps part of it, the object all): its expression, names and values;
    an empty expression when there is nothing to check."""
    terms: list[str] = []
    names: dict[str, str] = {}
    values: dict[str, int | bool] = {":listCut": True}
    attributes = _LIST_ATTRIBUTES[lists.kind]
    for n, (name, size) in enumerate(zip(attributes, lists.read_sizes, strict=False)):
        flag = next(field.flag for field in STEP_BUDGET.fields if field.name == name)
        names[f"#list{n}"], names[f"#listCut{n}"] = name, flag
        values[f":listSize{n}"] = size
        held = [f"size(#list{n}) = :listSize{n}", f"#listCut{n} = :listCut"]
        if not size:  # VAMS writes [] at launch, wfx leaves the list out
            held.append(f"attribute_not_exists(#list{n})")
        terms.append(f"({' OR '.join(held)})")
    if not terms:
        return "", {}, {}
    return " AND ".join(terms), names, values


def step_lists_attributes(lists: StepLists) -> tuple[Record, tuple[str, ...]]:
    """What a write of a step's lists sets and removes: the lists as the record of the step
    decided on stores them (cut to fit that row, with their bodies), and the flags of an
    earlier cut of a list now written whole (else a read would give the old list back)."""
    record = build_pipeline_execution_record(lists.step)
    names = _LIST_ATTRIBUTES[lists.kind]
    values = {name: record[name] for name in names if name in record}
    removed: list[str] = []
    for field in STEP_BUDGET.fields:
        if field.name not in names:
            continue
        if record.get(field.flag) is True:
            values[field.flag], values[field.key_attribute] = True, record[field.key_attribute]
        else:
            removed += (field.flag, field.key_attribute)
    offloads = (offload for offload in record.offloads if offload.attribute in names)
    return Record(values, offloads), tuple(removed)
