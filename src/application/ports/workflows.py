"""The ports of published workflows: their definitions and versions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from domain.paging import Page
    from domain.workflow import WorkflowDefinition, WorkflowVersion


class WorkflowDefinitions(Protocol):
    """Workflow definitions (seed 003): the namespace of each workflow, and the one write that
    publishes a version. A published version and its step definitions never change."""

    def create_tables(self) -> None: ...

    def publish(self, definition: WorkflowDefinition, version: WorkflowVersion) -> bool:
        """Store `version` with its step definitions and `definition` (the one it leaves: its
        pointer on `version`) in one atomic write. False, and nothing written, when the version
        number is taken or the stored pointer is not on the version before (a rival publish won).
        """
        ...

    def find_definition(self, database_id: str, workflow_id: str) -> WorkflowDefinition | None:
        """The definition, read consistently; None when nothing was published under it."""
        ...

    def list_definitions(
        self, limit: int, starting_token: str | None, database_id: str | None = None
    ) -> Page[WorkflowDefinition]:
        """Every definition (of one database, when given), by database id, then workflow id,
        `limit` (1..100) to a page; one index query per page, no scan. A token this list did not
        issue raises InvalidInputError."""
        ...


class WorkflowCatalog(Protocol):
    """Published workflow versions with their steps, read in step order; written only by
    WorkflowDefinitions.publish."""

    def create_tables(self) -> None: ...

    def latest_version(self, database_id: str, workflow_id: str) -> WorkflowVersion | None: ...

    def get_version(self, database_id: str, workflow_id: str, version: int) -> WorkflowVersion: ...

    def list_versions(
        self, database_id: str, workflow_id: str, limit: int, starting_token: str | None
    ) -> Page[WorkflowVersion]:
        """The workflow's versions, newest first, `limit` (1..100) to a page; an empty page for
        an unknown workflow. A token this list did not issue raises InvalidInputError."""
        ...

    def record_deployment(
        self, database_id: str, workflow_id: str, version: int, state_machine_arn: str
    ) -> WorkflowVersion:
        """Set the version's state machine ARN (the one thing a published version may gain, and
        only once: another ARN than the recorded one raises VersionImmutableError)."""
        ...
