"""Where as-test looks for a spec's snapshot file (model/snapshot_paths.py)."""

from __future__ import annotations

import pytest

from astest_tasks.model.snapshot_paths import snapshot_path

SNAPSHOT_DIR = "./.as-test/snapshots"


@pytest.mark.parametrize(
    ("spec_path", "snapshot_dir", "expected"),
    [
        (
            "assembly/__tests__/snapshot.spec.ts",
            SNAPSHOT_DIR,
            ".as-test/snapshots/snapshot.spec.snap",
        ),
        ("assembly/__tests__/nested/a.spec.ts", "snaps", "snaps/nested/a.spec.snap"),
        ("x/__tests__/y/__tests__/z.spec.ts", "snaps", "snaps/z.spec.snap"),  # last marker wins
        ("src/specs/a.spec.ts", "snaps", "snaps/a.spec.snap"),  # no __tests__: basename
        ("assembly\\__tests__\\win.spec.ts", "snaps/", "snaps/win.spec.snap"),
        ("assembly/__tests__/a.spec.mts", "snaps", "snaps/a.spec.mts"),  # only ".ts" is swapped
    ],
)
def test_snapshot_path(spec_path: str, snapshot_dir: str, expected: str) -> None:
    assert snapshot_path(spec_path, snapshot_dir) == expected
