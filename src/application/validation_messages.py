"""Pydantic validation errors as one line naming each field and its rule."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

# A document may break one rule thousands of times (an unknown key per line): the first ones say
# what to mend, the count says how much, and the line stays one a terminal or an answer can hold.
MAX_PROBLEMS_NAMED = 10


def _location(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def describe_validation_error(
    error: ValidationError, names: Mapping[str, str] | None = None
) -> str:
    """One line per problem, each naming the field and the rule: `steps[1].handler: ...`;
    a top-level field in `names` by the name given there (the option a user typed)."""
    lines = []
    problems = error.errors()
    for problem in problems[:MAX_PROBLEMS_NAMED]:
        loc = tuple(problem["loc"])
        if names and loc and isinstance(loc[0], str) and loc[0] in names:
            loc = (names[loc[0]], *loc[1:])
        where = _location(loc)
        if problem["type"] == "extra_forbidden":
            lines.append(f"{where}: unknown key")
        elif problem["type"] == "missing":
            lines.append(f"{where}: required")
        else:
            rule = problem["msg"].removeprefix("Value error, ")
            # A rule over several fields (a model validator) names them in its own text.
            lines.append(f"{where}: {rule}" if where else rule)
    if len(problems) > MAX_PROBLEMS_NAMED:
        lines.append(f"and {len(problems) - MAX_PROBLEMS_NAMED} more")
    return "; ".join(lines)
