"""The text of each results file the details show (VAMS's `resultsContent`): wfx's results rows
hold no content, so it is read from the object store (a row VAMS wrote holds its own text), each
file no further than VAMS's bound and all of them within one budget; what was cut is flagged,
never silently shortened.

The files are read in batches (at once where each read is a round trip): which row gets how much
of the budget is known only once the rows before it are read, so each file of a batch is read as
far as the budget left when the batch is sent would let it go, and the budget is then spent in
the rows' order: each text is what reading the rows one after another shows. A batch asks for at
most `batch_bytes` (43 files at VAMS's bound; once the budget is spent, one byte a file): what is
held at once stays bounded whatever the number of rows."""

from __future__ import annotations

from collections.abc import Sequence

from application.ports.files import HeadRequest, ObjectStore
from domain.execution import ExecutionDetails, OutputResult, StepDetails
from domain.result_text import RESULTS_CONTENT_BUDGET, RESULTS_CONTENT_LIMIT, ResultText, text_of

BATCH_BYTES = 4 * RESULTS_CONTENT_BUDGET

_Row = tuple[StepDetails, OutputResult]


class ResultTextReader:
    def __init__(
        self,
        objects: ObjectStore,
        limit: int = RESULTS_CONTENT_LIMIT,
        budget: int = RESULTS_CONTENT_BUDGET,
        batch_bytes: int = BATCH_BYTES,
    ) -> None:
        self._objects, self._limit, self._budget = objects, limit, budget
        self._batch_bytes = batch_bytes

    def attach(self, details: ExecutionDetails) -> ExecutionDetails:
        """Each step with its results' texts, in the order of its results rows."""
        rows = [(entry, row) for entry in details.steps for row in entry.outputs.results]
        texts = iter(self._texts(rows))
        steps = tuple(
            entry.model_copy(
                update={"result_texts": tuple(next(texts) for _ in entry.outputs.results)}
            )
            if entry.outputs.results
            else entry
            for entry in details.steps
        )
        return details.model_copy(update={"steps": steps})

    def _texts(self, rows: Sequence[_Row]) -> list[ResultText]:
        texts: list[ResultText] = []
        heads: dict[int, bytes | None] = {}
        left = self._budget
        for index, (_, row) in enumerate(rows):
            # a text not UTF-8 can spend past the budget ("\ufffd" is 3 bytes): none left then
            limit = max(0, min(self._limit, left))
            if row.stored_text is not None:  # VAMS wrote the text on its row: no object to read
                content, cut = text_of(row.stored_text.content.encode(), limit)
                truncated = cut or row.stored_text.truncated
            else:
                if index not in heads:
                    heads = self._batch(rows, index, limit + 1)
                head = heads[index]
                if head is None:  # a version removed since (a lifecycle rule, a delete)
                    content, truncated = "", False  # its row stays, without text
                else:  # read one byte past the bound at least: enough to know that it was cut
                    content, truncated = text_of(head, limit)
            left -= len(content.encode())
            texts.append(
                ResultText(
                    relative_file_path=row.relative_file_path, content=content, truncated=truncated
                )
            )
        return texts

    def _batch(self, rows: Sequence[_Row], start: int, size: int) -> dict[int, bytes | None]:
        """The heads of the files of rows `start` on, `size` bytes each, as many as a batch
        holds (one at least)."""
        files = [i for i in range(start, len(rows)) if rows[i][1].stored_text is None]
        files = files[: max(1, self._batch_bytes // size)]
        requests = [
            HeadRequest(entry.step.output_files_path + row.relative_file_path, row.version_id, size)
            for entry, row in (rows[i] for i in files)
        ]
        return dict(zip(files, self._objects.read_heads(requests), strict=True))
