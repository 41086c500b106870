"""What a run may write into a snapshot file (model/snapshot_update.py)."""

from __future__ import annotations

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.model.snapshot_update import SnapshotUpdate


@pytest.mark.parametrize(
    ("text", "update"),
    [
        ("", SnapshotUpdate.NONE),
        ("none", SnapshotUpdate.NONE),
        ("create", SnapshotUpdate.CREATE),
        (" Overwrite ", SnapshotUpdate.OVERWRITE),
        ("replace", SnapshotUpdate.REPLACE),
    ],
)
def test_update_parameter_values(text: str, update: SnapshotUpdate) -> None:
    assert SnapshotUpdate.parse(text) is update


def test_an_unknown_update_value_says_which_ones_exist() -> None:
    with pytest.raises(UserError, match=r"unknown snapshot update 'yes'.*create.*overwrite"):
        SnapshotUpdate.parse("yes")
