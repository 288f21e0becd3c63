"""The text of each results file the details show (VAMS's `resultsContent`): wfx's results rows
hold no content, so it is read from the object store (a row VAMS wrote holds its own text), each
file no further than VAMS's bound and all of them within one budget; what was cut is flagged,
never silently shortened."""

from __future__ import annotations

from application.ports.files import ObjectStore
from domain.execution import ExecutionDetails, StepDetails
from domain.result_text import RESULTS_CONTENT_BUDGET, RESULTS_CONTENT_LIMIT, ResultText, text_of


class ResultTextReader:
    def __init__(
        self,
        objects: ObjectStore,
        limit: int = RESULTS_CONTENT_LIMIT,
        budget: int = RESULTS_CONTENT_BUDGET,
    ) -> None:
        self._objects, self._limit, self._budget = objects, limit, budget

    def attach(self, details: ExecutionDetails) -> ExecutionDetails:
        """Each step with its results' texts, in the order of its results rows."""
        left = [self._budget]
        steps = tuple(self._step(entry, left) for entry in details.steps)
        return details.model_copy(update={"steps": steps})

    def _step(self, entry: StepDetails, left: list[int]) -> StepDetails:
        if not entry.outputs.results:
            return entry
        texts: list[ResultText] = []
        for row in entry.outputs.results:
            # a text not UTF-8 can spend past the budget ("\ufffd" is 3 bytes): none left then
            limit = max(0, min(self._limit, left[0]))
            if row.stored_text is not None:  # VAMS wrote the text on its row: no object to read
                content, cut = text_of(row.stored_text.content.encode(), limit)
                truncated = cut or row.stored_text.truncated
            else:
                content, truncated = self._read(
                    entry.step.output_files_path + row.relative_file_path, row.version_id, limit
                )
            left[0] -= len(content.encode())
            texts.append(
                ResultText(
                    relative_file_path=row.relative_file_path,
                    content=content,
                    truncated=truncated,
                )
            )
        return entry.model_copy(update={"result_texts": tuple(texts)})

    def _read(self, key: str, version_id: str, limit: int) -> tuple[str, bool]:
        try:
            # one byte past the bound: enough to know that the file was cut
            head = self._objects.read_head(key, version_id, limit + 1)
        except (FileNotFoundError, ValueError):
            # a version removed since (a lifecycle rule, a delete): its row stays, without text
            return "", False
        return text_of(head, limit)
