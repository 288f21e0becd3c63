"""The results texts read in batches answer what reading them one after another answered: the
same texts, the same `truncated` flags, the same failure, on many shapes of runs (the budget
running out mid-way, rows whose text VAMS stored, versions gone, bytes that are not UTF-8,
batches of one file and of many)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from application.ports.files import HeadRequest, ObjectStore
from application.result_texts import ResultTextReader
from domain.execution import ExecutionDetails, OutputResult, StepDetails, StepOutputs
from domain.result_text import ResultText, text_of
from tests.unit.test_records import a_step, an_execution


class _Failed(Exception):
    """A read that failed other than "gone" (a network error, a refusal)."""


@dataclass(frozen=True)
class _Object:
    body: bytes | None  # None: that version is gone
    fails: bool = False


class _Objects:
    """Objects in memory; each read notes how far it was asked to read."""

    def __init__(self, objects: dict[tuple[str, str], _Object]) -> None:
        self._objects = objects
        self.asked: list[int] = []
        self.batches: list[list[int]] = []

    def read_head(self, key: str, version_id: str, size: int) -> bytes:
        self.asked.append(size)
        if version_id == "bad/id":
            raise ValueError(version_id)  # a version id no store could hold
        stored = self._objects.get((key, version_id))
        if stored is None or stored.body is None:
            raise FileNotFoundError(key)
        if stored.fails:
            raise _Failed(key)
        return stored.body[:size]

    def read_heads(self, requests: Sequence[HeadRequest]) -> list[bytes | None]:
        self.batches.append([request.size for request in requests])
        heads: list[bytes | None] = []
        for request in requests:
            try:
                heads.append(self.read_head(request.key, request.version_id, request.size))
            except (FileNotFoundError, ValueError):
                heads.append(None)
        return heads


def _one_by_one(
    details: ExecutionDetails, objects: _Objects, limit: int, budget: int
) -> ExecutionDetails:
    """ResultTextReader.attach as it was (aa9cad99): a `read_head` of each file in turn, as far
    as the budget left by the rows before it lets it go."""
    left = budget
    steps: list[StepDetails] = []
    for entry in details.steps:
        if not entry.outputs.results:
            steps.append(entry)
            continue
        texts: list[ResultText] = []
        for row in entry.outputs.results:
            share = max(0, min(limit, left))
            if row.stored_text is not None:
                content, cut = text_of(row.stored_text.content.encode(), share)
                truncated = cut or row.stored_text.truncated
            else:
                key = entry.step.output_files_path + row.relative_file_path
                try:
                    head = objects.read_head(key, row.version_id, share + 1)
                except (FileNotFoundError, ValueError):
                    content, truncated = "", False
                else:
                    content, truncated = text_of(head, share)
            left -= len(content.encode())
            texts.append(
                ResultText(
                    relative_file_path=row.relative_file_path, content=content, truncated=truncated
                )
            )
        steps.append(entry.model_copy(update={"result_texts": tuple(texts)}))
    return details.model_copy(update={"steps": tuple(steps)})


bodies = st.one_of(
    st.binary(max_size=16),  # mostly not UTF-8
    st.text(max_size=8).map(str.encode),  # characters of one to four bytes
)
rows = st.one_of(
    st.tuples(st.just("object"), bodies),
    st.tuples(st.just("gone"), st.just(b"")),
    st.tuples(st.just("bad version"), st.just(b"")),
    st.tuples(st.just("fails"), st.just(b"")),
    st.tuples(st.sampled_from(["stored", "stored, cut"]), st.text(max_size=8).map(str.encode)),
)
runs = st.lists(st.lists(rows, max_size=5), max_size=4)


def _run(shape: list[list[tuple[str, bytes]]]) -> tuple[ExecutionDetails, _Objects]:
    objects: dict[tuple[str, str], _Object] = {}
    steps: list[StepDetails] = []
    for n, step_rows in enumerate(shape):
        step = a_step(pipeline_execution_id=f"p{n}", output_files_path=f"executions/e1/out{n}/")
        results: list[OutputResult] = []
        for m, (kind, body) in enumerate(step_rows):
            name = f"r{m}.txt"
            version = "bad/id" if kind == "bad version" else f"v{n}-{m}"
            stored = None
            if kind.startswith("stored"):
                stored = ResultText(
                    relative_file_path=name, content=body.decode(), truncated=kind.endswith("cut")
                )
            elif kind != "bad version":
                objects[(step.output_files_path + name, version)] = _Object(
                    None if kind == "gone" else body, fails=kind == "fails"
                )
            results.append(
                OutputResult(
                    pipeline_execution_id=f"p{n}",
                    workflow_execution_id="e1",
                    relative_file_path=name,
                    version_id=version,
                    stored_text=stored,
                )
            )
        steps.append(StepDetails(step=step, outputs=StepOutputs(results=tuple(results))))
    return ExecutionDetails(execution=an_execution(), steps=tuple(steps)), _Objects(objects)


def _answer(read: Any) -> ExecutionDetails | str:
    try:
        return cast(ExecutionDetails, read())
    except _Failed as failed:
        return f"failed: {failed}"


@settings(max_examples=400, deadline=None)
@given(
    shape=runs,
    limit=st.integers(min_value=0, max_value=12),
    budget=st.integers(min_value=0, max_value=40),
    batch_bytes=st.integers(min_value=1, max_value=60),
)
def test_texts_read_in_batches_are_those_read_one_by_one(
    shape: list[list[tuple[str, bytes]]], limit: int, budget: int, batch_bytes: int
) -> None:
    details, objects = _run(shape)
    reader = ResultTextReader(cast(ObjectStore, objects), limit, budget, batch_bytes)

    batched = _answer(lambda: reader.attach(details))
    asked, objects.asked = objects.asked, []
    one_by_one = _answer(lambda: _one_by_one(details, objects, limit, budget))

    assert batched == one_by_one
    # each file asked no further than the whole budget could let it go, each batch for no more
    # than its bytes (but one file), and no batch empty
    assert all(size <= min(limit, budget) + 1 for size in asked)
    assert all(sum(sizes) <= batch_bytes or len(sizes) == 1 for sizes in objects.batches)
    assert all(objects.batches)


def test_a_batch_holds_as_many_files_as_its_bytes_allow_and_one_byte_each_once_spent() -> None:
    details, objects = _run([[("object", b"abcdef")] * 3 + [("object", b"")] * 4])
    reader = ResultTextReader(cast(ObjectStore, objects), limit=4, budget=8, batch_bytes=10)

    read = reader.attach(details)

    assert [(t.content, t.truncated) for t in read.steps[0].result_texts] == [
        ("abcd", True),
        ("abcd", True),
        ("", True),
        *[("", False)] * 4,
    ]
    # 5 bytes a file, two files a batch; then the budget is spent: one byte each, all at once
    assert objects.asked == [5, 5, 1, 1, 1, 1, 1]
