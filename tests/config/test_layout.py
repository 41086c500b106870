"""Paths as doit records them (config/layout.py)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from astest_tasks.config.layout import doit_paths

SEGMENTS = ("a", "..", ".", "", "node_modules", "c d", "..a")
# Every path of up to three segments, relative and absolute: the ones that climb above the cwd
# or the file system's root are where a join-and-normalise shortcut would part from relpath.
PATHS = [
    *(
        "/".join(parts)
        for length in (1, 2, 3)
        for parts in itertools.product(SEGMENTS, repeat=length)
    ),
    "/abs/x.ts",
    "/",
]


@pytest.mark.parametrize("root_below_cwd", ["", "p", "p/q", "..", "../r", "p/../s"])
def test_every_path_is_what_relpath_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root_below_cwd: str
) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    root = cwd / root_below_cwd
    expected = [os.path.relpath(root / path, cwd) for path in PATHS]
    assert doit_paths(root, PATHS) == expected


def test_from_the_file_systems_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir("/")
    paths = ["../..", "a/../../b", "x.ts"]
    assert doit_paths(Path("/"), paths) == [os.path.relpath(Path("/") / p, "/") for p in paths]


@pytest.mark.parametrize("root_below_cwd", ["", "p", ".."])
def test_absolute_paths_in_and_beside_the_cwd_are_what_relpath_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root_below_cwd: str
) -> None:
    # The manifests and asconfigs a build depends on come as absolute paths: the ones inside
    # the cwd are cut, the others (a sibling whose name starts like the cwd's) go to relpath.
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    absolute = [
        *(f"{cwd}/{path}" for path in PATHS if not path.startswith("/")),
        str(cwd),
        f"{cwd}/",
        f"{cwd}x/a.json",
        f"{cwd}/../cwdx/a.json",
        f"/{cwd}/node_modules/as-test/package.json",
    ]
    root = cwd / root_below_cwd
    expected = [os.path.relpath(root / path, cwd) for path in absolute]
    assert doit_paths(root, absolute) == expected


def test_absolute_paths_from_the_file_systems_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir("/")
    paths = ["/a", "//a", "///a", "/", "//", "/a/../b"]
    assert doit_paths(Path("/"), paths) == [os.path.relpath(p, "/") for p in paths]
