"""Where as-test looks for a spec's snapshot file (model/snapshot_paths.py)."""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
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


def _reference_relative_path(root: Path, spec_path: str, patterns: list[str]) -> str:
    """spec_relative_path as it was written with regular expressions and Path."""

    def components(path: str) -> list[str]:
        parts = re.split(r"[\\/]+", path)
        return [part for index, part in enumerate(parts) if part or index == 0]

    def glob_base(pattern: str) -> str:
        normalized = pattern.replace("\\", "/")
        meta = re.search(r"[*?\[\](){}!|+@]", normalized)
        if meta is None:
            base = posixpath.dirname(normalized)
            return "" if base == "." else base
        head = normalized[: meta.start()]
        return head[: head.rfind("/")] if "/" in head else ""

    absolute = os.path.normpath(os.path.join(root, spec_path))
    best: str | None = None
    best_length = -1
    for pattern in patterns:
        base_absolute = os.path.normpath(os.path.join(root, glob_base(pattern)))
        base_parts = components(base_absolute)
        file_parts = components(absolute)
        if len(base_parts) > len(file_parts) or file_parts[: len(base_parts)] != base_parts:
            continue
        if len(base_parts) > best_length:
            best, best_length = base_absolute, len(base_parts)
    fallback = snapshot_paths.js_basename(spec_path.replace("\\", "/"))
    if best is None:
        return fallback
    relative = Path(os.path.relpath(absolute, best)).as_posix()
    return relative if relative not in ("", ".") else fallback


_SEGMENT = st.sampled_from(["assembly", "__tests__", "a.spec.ts", "..", ".", "", "x*", "{a,b}"])
_RELATIVE = st.lists(_SEGMENT, min_size=1, max_size=5).map("/".join)


@settings(max_examples=400)
@given(
    _RELATIVE,
    st.lists(_RELATIVE, min_size=1, max_size=3),
    st.booleans(),
    st.sampled_from([Path("/project/root"), Path("/"), Path("relative/root")]),
)
def test_the_relative_path_is_the_one_path_parsing_gives(
    spec: str, patterns: list[str], absolute_spec: bool, root: Path
) -> None:
    if absolute_spec:
        spec = f"/project/{spec}"
    expected = _reference_relative_path(root, spec, patterns)
    assert snapshot_paths.spec_relative_path(root, spec, patterns) == expected
