"""VAMS's `{"message": ...}` envelope around the answers of its details-metadata and logs routes
(executionService's `success(body={'message': ...})`): what `message` holds is wfx's document of
that answer, as the CLI's `--json` prints it bare."""

from __future__ import annotations

from typing import Any

from entrypoints.metadata_page import MetadataPage
from entrypoints.responses import ExecutionLogsResponse
from entrypoints.vams_responses import VamsResponse


class MetadataPageAnswer(VamsResponse):
    message: MetadataPage

    def dump(self) -> dict[str, Any]:
        return {"message": self.message.dump()}


class LogsAnswer(VamsResponse):
    message: ExecutionLogsResponse

    def dump(self) -> dict[str, Any]:
        # the logs document's own dump: it says nextToken even when null, and no `events` list
        # beside a stored log
        return {"message": self.message.dump()}
