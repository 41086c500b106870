"""Paths as doit records them (config/layout.py)."""

from __future__ import annotations

import itertools
import os
from dataclasses import replace
from pathlib import Path

import pytest

from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.discovery import Spec
from astest_tasks.config.layout import doit_paths, spec_files, spec_result_path
from astest_tasks.config.project_config import load_config

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


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder of the test's own, entered for the test."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def assert_as_relpath(root: Path, cwd: Path, paths: list[str]) -> None:
    assert doit_paths(root, paths) == [os.path.relpath(root / path, cwd) for path in paths]


@pytest.mark.parametrize("root_below_cwd", ["", "p", "p/q", "..", "../r", "p/../s"])
def test_every_path_is_what_relpath_gives(cwd: Path, root_below_cwd: str) -> None:
    assert_as_relpath(cwd / root_below_cwd, cwd, PATHS)


def test_from_the_file_systems_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir("/")
    assert_as_relpath(Path("/"), Path("/"), ["../..", "a/../../b", "x.ts"])


@pytest.mark.parametrize("root_below_cwd", ["", "p", ".."])
def test_absolute_paths_in_and_beside_the_cwd_are_what_relpath_gives(
    cwd: Path, root_below_cwd: str
) -> None:
    # The manifests and asconfigs a build depends on come as absolute paths: the ones inside
    # the cwd are cut, the others (a sibling whose name starts like the cwd's) go to relpath.
    absolute = [
        *(f"{cwd}/{path}" for path in PATHS if not path.startswith("/")),
        str(cwd),
        f"{cwd}/",
        f"{cwd}x/a.json",
        f"{cwd}/../cwdx/a.json",
        f"/{cwd}/node_modules/as-test/package.json",
    ]
    assert_as_relpath(cwd / root_below_cwd, cwd, absolute)


def test_absolute_paths_from_the_file_systems_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir("/")
    assert_as_relpath(Path("/"), Path("/"), ["/a", "//a", "///a", "/", "//", "/a/../b"])


def test_the_answers_kept_follow_the_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same relative root and manifest asked from two working folders: each answer is
    relpath's from the folder of the moment, never one kept from the other."""
    paths = ["../outside/package.json", "a/b.ts", str(tmp_path / "x" / "manifest.json")]
    for folder in ("one", "two/deeper", "one"):
        (tmp_path / folder / "p").mkdir(parents=True, exist_ok=True)
        monkeypatch.chdir(tmp_path / folder)
        assert_as_relpath(Path("p"), tmp_path / folder, paths)


@pytest.mark.parametrize("out_dir", ["./.as-test/build/default", "build/x/", "/abs/out", ""])
def test_the_result_path_alone_is_the_one_among_the_spec_files(
    tmp_path: Path, out_dir: str
) -> None:
    config = load_config(Path("as-test.config.json"), tmp_path, AsTestRules.parse("1.8.0"))
    mode = replace(config.base, out_dir=out_dir)
    spec = Spec(path="assembly/__tests__/a.spec.ts", spec_id="nested/a")
    assert spec_result_path(mode, spec) == spec_files(mode, spec).result
