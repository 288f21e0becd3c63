"""`make test` runs `--dist loadgroup`: the tests of one `xdist_group` go to one worker, so a
module's shared service is started once and tests that must not overlap do not. pytest 9.2
stopped honouring the mark xdist 3.8 sets (a node's id moved), and nothing said so."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.xdist_group("the-groups-own-check")


def test_a_grouped_test_runs_under_its_group_on_a_loadgroup_worker(
    request: pytest.FixtureRequest,
) -> None:
    # a worker runs with dist "no"; xdist sets `loadgroup` on it from the controller's option
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not on a worker of pytest-xdist's loadgroup distribution")
    assert request.node.nodeid.endswith("@the-groups-own-check")
