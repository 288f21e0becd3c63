"""Domain errors: each names the rule that was broken and the thing it was broken by."""

# The error a run ends with when its runner stopped renewing its lease (domain.run); the event
# log tells such an end by it (domain.events).
RUNNER_LOST_ERROR = "wfx.RunnerLost"


class DomainError(Exception):
    """Base of every error the domain and the use cases raise on purpose."""


class InvalidInputError(DomainError, ValueError):
    """A request broke a validation rule; the message names the field and the rule."""


class NotAuthenticatedError(DomainError):
    """A request without a valid identity (no token, a bad or expired one): HTTP 401."""


class NotAuthorizedError(DomainError):
    """The caller may not do this; the message names the action and the object, never a rule's
    internals: HTTP 403."""


class NotFoundError(DomainError, LookupError):
    """Something a request names does not exist."""


class ExecutionNotFoundError(NotFoundError):
    def __init__(self, workflow_execution_id: str) -> None:
        super().__init__(f"execution {workflow_execution_id} not found")
        self.workflow_execution_id = workflow_execution_id


class PipelineExecutionNotFoundError(NotFoundError):
    def __init__(
        self, pipeline_execution_id: str, workflow_execution_id: str | None = None
    ) -> None:
        where = f" in execution {workflow_execution_id}" if workflow_execution_id else ""
        super().__init__(f"pipeline execution {pipeline_execution_id} not found{where}")
        self.pipeline_execution_id = pipeline_execution_id


class WorkflowNotFoundError(NotFoundError):
    pass


class OutputFileNotFoundError(NotFoundError):
    pass


class AssetNotFoundError(NotFoundError):
    pass


class RoleNotFoundError(NotFoundError):
    def __init__(self, role_name: str) -> None:
        super().__init__(f"role {role_name!r} not found")
        self.role_name = role_name


class PermissionTemplateNotFoundError(NotFoundError):
    pass


class ConflictError(DomainError):
    """The request clashes with what is already stored."""


class UnreadableRowError(ConflictError):
    """A stored row another writer (VAMS, a person, an older release) left in a shape wfx cannot
    read: the message names the table, the row's key and what is wrong, so it can be mended or
    deleted (HTTP 409; CLI exit 2), never a traceback. A read that shows what it can leaves the
    row out and names it by `table`, `key`, `attribute` (None when no one attribute is at
    fault) and `problem`."""

    def __init__(
        self,
        message: str,
        table: str = "",
        key: str = "",
        attribute: str | None = None,
        problem: str = "",
    ) -> None:
        super().__init__(message)
        self.table, self.key, self.attribute, self.problem = table, key, attribute, problem


class ExecutionAlreadyExistsError(ConflictError):
    pass


class VersionImmutableError(ConflictError):
    """A write to a published workflow version or its step definitions (seed 003: published
    versions are immutable)."""


class RoleAlreadyExistsError(ConflictError):
    def __init__(self, role_name: str) -> None:
        super().__init__(f"role {role_name!r} exists already")
        self.role_name = role_name


class IdempotencyConflictError(ConflictError):
    """A client token was reused with a different request (as a reused Step Functions name)."""


class RedriveNotAllowedError(ConflictError):
    """Seed 001 refuses the redrive; the message is the seed's reason, word for word."""

    def __init__(self, workflow_execution_id: str, reason: str) -> None:
        super().__init__(reason)
        self.workflow_execution_id = workflow_execution_id
        self.reason = reason


class RerunNotAllowedError(ConflictError):
    """A rerun of a run that has not ended: a rerun is rebuilt from what a run recorded, and an
    open run has not recorded all of it yet (HTTP 409); abort it or let it end first."""

    def __init__(self, workflow_execution_id: str, status: str) -> None:
        super().__init__(
            f"execution {workflow_execution_id} is {status}: only an execution that has ended "
            "can be rerun (abort it, or wait for it to end)"
        )
        self.workflow_execution_id = workflow_execution_id


class ExecutionBeingDeletedError(ConflictError):
    """A run a permanent delete has begun on (and, cut short, not finished): what it recorded
    may be going, so nothing is rebuilt from it (HTTP 409); delete it again to finish."""

    def __init__(self, workflow_execution_id: str) -> None:
        super().__init__(
            f"execution {workflow_execution_id} is being deleted: a delete cut short finishes "
            "when the run is deleted again"
        )
        self.workflow_execution_id = workflow_execution_id


class ExecutionStillRunningError(ConflictError):
    """A permanent delete of a run that has not ended: it would leave its processes running
    with no row to report to (HTTP 409); abort it first, or delete with force."""

    def __init__(self, workflow_execution_id: str, status: str) -> None:
        super().__init__(
            f"execution {workflow_execution_id} is {status}: abort it first, or delete it with "
            "force (which aborts it)"
        )
        self.workflow_execution_id = workflow_execution_id
