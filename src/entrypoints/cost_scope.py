"""The scope a cost summary names, read alike from the CLI's options and the HTTP query: at most
one of execution, workflow, group, asset; a workflow or asset as DATABASE_ID/ID."""

from __future__ import annotations

from application.use_cases.summarize_costs import SummaryScope
from domain.errors import InvalidInputError

# the scopes a summary may name, in the order of their options
NAMED_SCOPES = tuple(scope for scope in SummaryScope if scope is not SummaryScope.ALL)


def summary_scope(
    execution: str | None,
    workflow: str | None,
    group: str | None,
    asset: str | None,
    option_prefix: str = "",
) -> tuple[SummaryScope, str | None]:
    """The scope named and its key as the ledger keys it; a refusal names each option as
    `option_prefix` + the scope (`--workflow` on the CLI, `workflow` over HTTP)."""
    values = (execution, workflow, group, asset)
    named = [(s, value) for s, value in zip(NAMED_SCOPES, values, strict=True) if value is not None]
    if len(named) > 1:
        options = ", ".join(f"{option_prefix}{s.value}" for s in NAMED_SCOPES)
        raise InvalidInputError(f"{options}: give at most one")
    scope, key = named[0] if named else (SummaryScope.ALL, None)
    if scope in (SummaryScope.WORKFLOW, SummaryScope.ASSET) and key is not None:
        database, _, name = key.partition("/")
        if not database or not name:  # said here, quoting what was sent, not the joined key
            raise InvalidInputError(
                f"{option_prefix}{scope.value}: must be DATABASE_ID/ID, got {key!r}"
            )
        key = f"{database}:{name}"  # a composite key of seed 000 is colon-joined
    return scope, key
