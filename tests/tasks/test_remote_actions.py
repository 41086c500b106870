"""What a run may share through the remote cache: a plain pass that changed nothing, only."""

from __future__ import annotations

from dataclasses import replace

import pytest

from astest_tasks.model.results import Status
from astest_tasks.model.snapshots import SnapshotUpdate
from astest_tasks.run.default_runtime import DefaultRuntime
from astest_tasks.tasks.remote_actions import shareable
from tests.conftest import make_run_request, make_spec_result

REQUEST = make_run_request("/project", "math", DefaultRuntime("wasi"))


def test_a_plain_pass_is_shared() -> None:
    assert shareable(REQUEST, make_spec_result())


@pytest.mark.parametrize(
    "case",
    ["failed", "crashed or timed out", "wrote snapshots", "--update-snapshots", "--no-snapshot"],
)
def test_nothing_else_is_shared(case: str) -> None:
    request, result = REQUEST, make_spec_result()
    if case == "failed":
        result = make_spec_result(status=Status.FAILED)
    elif case == "crashed or timed out":
        result = make_spec_result(error="the spec ran longer than its timeout (2 s)")
    elif case == "wrote snapshots":
        result = make_spec_result(written=("wrote .as-test/snapshots/math.spec.snap",))
    elif case == "--update-snapshots":
        snapshots = replace(REQUEST.snapshots, update=SnapshotUpdate.CREATE)
        request = replace(REQUEST, snapshots=snapshots)
    else:
        request = replace(REQUEST, snapshots=replace(REQUEST.snapshots, unchecked=True))
    assert not shareable(request, result)
