"""Where as-test looks for a spec's snapshot file (model/snapshot_paths.py)."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from astest_tasks.model import snapshot_paths
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


# The scans that replaced regular expressions on every spec's path (issue 40) answer as the
# expressions did, over the characters a path may hold and the ones each expression names.
_PATH_TEXT = st.text(alphabet=st.sampled_from("ab./\\*?[](){}!|+@\n t"), max_size=24)


@given(_PATH_TEXT)
def test_components_split_as_the_separator_expression_did(path: str) -> None:
    parts = re.split(r"[\\/]+", path)
    assert snapshot_paths._components(path) == [
        part for index, part in enumerate(parts) if part or index == 0
    ]


@given(_PATH_TEXT)
def test_glob_base_stops_where_the_meta_expression_did(pattern: str) -> None:
    normalized = pattern.replace("\\", "/")
    meta = re.search(r"[*?\[\](){}!|+@]", normalized)
    if meta is None:
        base = posixpath.dirname(normalized)
        expected = "" if base == "." else base
    else:
        head = normalized[: meta.start()]
        expected = head[: head.rfind("/")] if "/" in head else ""
    assert snapshot_paths._glob_base(pattern) == expected


@given(st.text(alphabet=st.sampled_from("a.tsn\n/"), max_size=12))
def test_ts_to_snap_replaces_as_the_anchored_expression_did(path: str) -> None:
    assert snapshot_paths._ts_to_snap(path) == re.sub(r"\.ts$", ".snap", path)


@pytest.mark.parametrize(
    ("spec", "patterns", "expected"),
    [
        ("assembly/__tests__/a.spec.ts", ["assembly/__tests__/*.spec.ts"], "a.spec.ts"),
        ("assembly/__tests__/x/b.spec.ts", ["assembly/**/*.spec.ts"], "__tests__/x/b.spec.ts"),
        ("tests/c.spec.ts", ["assembly/*.spec.ts"], "c.spec.ts"),
        ("assembly/d.spec.ts", ["./assembly/d.spec.ts"], "d.spec.ts"),
    ],
)
def test_the_relative_path_is_the_one_path_parsing_gives(
    tmp_path: Path, spec: str, patterns: list[str], expected: str
) -> None:
    assert snapshot_paths.spec_relative_path(tmp_path, spec, patterns) == expected
