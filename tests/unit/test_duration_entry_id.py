"""A duration entry's id is `duration-` and uuid5 of the attempt's ids, as uuid.uuid5 makes it."""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from application.use_cases.record_cost import duration_entry_id


@given(st.text(), st.text(), st.integers(min_value=1))
def test_the_id_is_the_uuid5_of_the_attempts_ids(run_id: str, step_id: str, attempt: int) -> None:
    expected = uuid.uuid5(uuid.NAMESPACE_URL, f"{run_id}:{step_id}:{attempt}")

    entry_id = duration_entry_id(run_id, step_id, attempt)

    assert entry_id == f"duration-{expected}"
    assert uuid.UUID(entry_id.removeprefix("duration-")).version == 5
