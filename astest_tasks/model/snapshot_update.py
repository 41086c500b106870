"""What a run may write into a spec's snapshot file: a run switch that planning reads for every
run's key, kept apart from the snapshot store (snapshots.py), which only a running spec needs."""

from __future__ import annotations

from enum import Enum

from astest_tasks.core.errors import UserError


class SnapshotUpdate(Enum):
    """What a run may write: as-test's --create-snapshots and --overwrite-snapshots, which are
    two independent switches there (``snapshot-store.ts``), so each pair has a member."""

    NONE = ""
    CREATE = "create"  # store missing entries (--create-snapshots)
    OVERWRITE = "overwrite"  # store missing entries and replace mismatching ones (both)
    REPLACE = "replace"  # replace mismatching entries; a missing one still fails (--overwrite-…)

    @property
    def creates(self) -> bool:
        return self in (SnapshotUpdate.CREATE, SnapshotUpdate.OVERWRITE)

    @property
    def replaces(self) -> bool:
        return self in (SnapshotUpdate.OVERWRITE, SnapshotUpdate.REPLACE)

    @classmethod
    def from_switches(cls, create: bool, overwrite: bool) -> SnapshotUpdate:
        """as-test's ``--create-snapshots`` and ``--overwrite-snapshots`` as one value."""
        if create and overwrite:
            return cls.OVERWRITE
        return cls.CREATE if create else cls.REPLACE if overwrite else cls.NONE

    @classmethod
    def parse(cls, text: str) -> SnapshotUpdate:
        value = text.strip().lower()
        for member in cls:
            if member.value == value or (value == "none" and member is cls.NONE):
                return member
        raise UserError(
            f"unknown snapshot update {text!r}; fix: use `--update-snapshots=create` (write "
            "missing snapshots), `--update-snapshots=overwrite` (also replace mismatching "
            "ones) or `--update-snapshots=replace` (only replace mismatching ones), or "
            "ASTEST_UPDATE_SNAPSHOTS=create|overwrite|replace"
        )
