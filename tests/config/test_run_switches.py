"""run_switches.py: --no-snapshot, --show-coverage and --browser as given."""

from __future__ import annotations

import pytest

from astest_tasks.config.run_switches import RunSwitches, ShowCoverage
from astest_tasks.core.errors import UserError
from astest_tasks.model.snapshot_update import SnapshotUpdate


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ShowCoverage.NONE),
        ("off", ShowCoverage.NONE),
        ("on", ShowCoverage.COLLAPSED),
        ("1", ShowCoverage.COLLAPSED),
        (" ALL ", ShowCoverage.ALL),
    ],
)
def test_show_coverage_values(text: str, expected: ShowCoverage) -> None:
    assert ShowCoverage.parse(text) is expected


def test_an_unknown_show_coverage_value_names_the_choices() -> None:
    with pytest.raises(UserError, match=r"ASTEST_SHOW_COVERAGE: 'nested' is not a choice; fix:"):
        ShowCoverage.parse("nested")


def test_the_switches_as_given() -> None:
    switches = RunSwitches.parse(True, "all", " chromium ", SnapshotUpdate.NONE)
    assert switches == RunSwitches(True, ShowCoverage.ALL, "chromium", SnapshotUpdate.NONE)


@pytest.mark.parametrize("update", [SnapshotUpdate.CREATE, SnapshotUpdate.OVERWRITE])
def test_no_snapshot_cannot_go_with_an_update(update: SnapshotUpdate) -> None:
    with pytest.raises(UserError, match=rf"--no-snapshot with --update-snapshots={update.value}"):
        RunSwitches.parse(True, "", "", update)
