"""core/project_source.py: a name from a report is read only when it is one of the project's own
regular source files; every other name is "not available" and nothing outside is opened."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from astest_tasks.core.project_source import (
    MAX_SOURCE_BYTES,
    NotReadable,
    file_signature,
    project_source_path,
    read_named_file,
    read_project_file,
    read_project_source,
    read_regular_file,
)

MARKER = "SECRET-MARKER-7c1f"


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    """A project beside a secret file outside it."""
    project = tmp_path / "project"
    (project / "assembly" / "src").mkdir(parents=True)
    (project / "assembly" / "src" / "calc.ts").write_text("export function add(): i32 {\n")
    (tmp_path / "secret.ts").write_text(f"// {MARKER}\n")
    return project


def test_a_project_file_is_read_by_its_relative_name(layout: Path) -> None:
    assert read_project_source(layout, "assembly/src/calc.ts") == "export function add(): i32 {\n"
    assert read_project_source(layout, "./assembly/../assembly/src/calc.ts") is not None


def test_an_absolute_name_inside_the_project_is_read(layout: Path) -> None:
    inside = str(layout / "assembly" / "src" / "calc.ts")
    assert read_project_source(layout, inside) == "export function add(): i32 {\n"


@pytest.mark.parametrize("name", ["../secret.ts", "assembly/../../secret.ts", "{outside}"])
def test_a_name_outside_the_project_is_never_read(layout: Path, name: str) -> None:
    name = name.replace("{outside}", str(layout.parent / "secret.ts"))
    assert read_project_source(layout, name) is None


def test_a_symlink_out_of_the_project_is_never_followed_out(layout: Path) -> None:
    (layout / "assembly" / "src" / "env.ts").symlink_to(layout.parent / "secret.ts")
    (layout / "assembly" / "src" / "environ.ts").symlink_to("/proc/self/environ")
    (layout / "assembly" / "src" / "zero.ts").symlink_to("/dev/zero")
    for name in ("env.ts", "environ.ts", "zero.ts"):
        assert read_project_source(layout, f"assembly/src/{name}") is None, name


def test_a_symlinked_folder_out_of_the_project_is_never_followed_out(layout: Path) -> None:
    (layout / "assembly" / "linked").symlink_to(layout.parent)
    assert read_project_source(layout, "assembly/linked/secret.ts") is None


def test_a_symlink_within_the_project_is_read_where_it_points(layout: Path) -> None:
    (layout / "assembly" / "alias.ts").symlink_to(layout / "assembly" / "src" / "calc.ts")
    assert read_project_source(layout, "assembly/alias.ts") == "export function add(): i32 {\n"


@pytest.mark.parametrize(
    "name", ["node_modules/pkg/index.ts", ".env", ".git/config", "assembly/.hidden/a.ts"]
)
def test_dependencies_and_hidden_files_are_not_the_projects_sources(
    layout: Path, name: str
) -> None:
    path = layout / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"TOKEN={MARKER}\n")
    assert read_project_source(layout, name) is None


def test_a_fifo_is_not_waited_on(layout: Path) -> None:
    """No writer ever opens it: a blocking open or read would hang the test."""
    os.mkfifo(layout / "assembly" / "pipe.ts")
    assert read_project_source(layout, "assembly/pipe.ts") is None


@pytest.mark.parametrize("name", ["", "assembly", ".", "missing.ts", "a\0b.ts", "bad\udc80.ts"])
def test_a_folder_a_missing_file_or_an_impossible_name_is_not_available(
    layout: Path, name: str
) -> None:
    assert read_project_source(layout, name) is None


def test_a_symlink_loop_is_not_available(layout: Path) -> None:
    (layout / "loop.ts").symlink_to(layout / "loop.ts")
    assert read_project_source(layout, "loop.ts") is None


def _error_of(read: object) -> str:
    try:
        read()  # type: ignore[operator]
    except (OSError, NotReadable, RuntimeError, ValueError) as error:  # not AssertionError
        return type(error).__name__
    return "read"


@pytest.mark.parametrize(
    "name",
    [
        "missing.ts",
        "gone/missing.ts",
        "dangling.ts",
        "assembly/src/calc.ts/x.ts",
        "loop.ts",
        "../missing.ts",
        "/nowhere/missing.ts",
        "bad\udc80.ts",
        "assembly/src/calc.ts",
    ],
)
def test_a_missing_file_is_told_from_one_stat_with_the_answer_resolving_gives(
    layout: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    (layout / "dangling.ts").symlink_to(layout / "nowhere.ts")
    (layout / "loop.ts").symlink_to(layout / "loop.ts")

    def read() -> bytes:
        return read_project_file(layout, name, hidden_folders=False, max_bytes=1000)

    answer = _error_of(read)
    real_resolve = Path.resolve

    def resolve(path: Path, strict: bool = False) -> Path:
        if answer == "FileNotFoundError":
            raise AssertionError("a missing file was resolved part by part")
        return real_resolve(path, strict=strict)

    monkeypatch.setattr(Path, "resolve", resolve)
    assert _error_of(read) == answer
    resolved_alone = _error_of(lambda: real_resolve(layout / name, strict=True))
    if answer == "FileNotFoundError":
        assert resolved_alone == "FileNotFoundError"


def test_a_file_over_the_cap_is_not_read(layout: Path) -> None:
    big = layout / "assembly" / "big.ts"
    big.write_bytes(b"x" * MAX_SOURCE_BYTES)
    assert read_project_source(layout, "assembly/big.ts") == "x" * MAX_SOURCE_BYTES
    big.write_bytes(b"x" * (MAX_SOURCE_BYTES + 1))
    assert read_project_source(layout, "assembly/big.ts") is None


def test_invalid_utf8_is_replaced_not_refused(layout: Path) -> None:
    (layout / "odd.ts").write_bytes(b"a\xffb")
    assert read_project_source(layout, "odd.ts") == "a\ufffdb"


def test_the_path_is_where_the_file_really_is(layout: Path) -> None:
    (layout / "alias.ts").symlink_to(layout / "assembly" / "src" / "calc.ts")
    real = (layout / "assembly" / "src" / "calc.ts").resolve()
    assert project_source_path(layout, "alias.ts") == real
    assert project_source_path(layout, "../secret.ts") is None


def test_a_project_file_in_a_hidden_folder_is_read_only_when_allowed(layout: Path) -> None:
    """Snapshots live in ``.as-test/``: that variant allows hidden folders, never a hidden file
    or ``.git``, and says why it refused."""
    (layout / ".as-test").mkdir()
    (layout / ".as-test" / "a.snap").write_text("kept\n")
    (layout / ".env").write_text(f"TOKEN={MARKER}\n")
    (layout / ".git").mkdir()
    (layout / ".git" / "config").write_text(f"{MARKER}\n")
    read = read_project_file(layout, ".as-test/a.snap", hidden_folders=True, max_bytes=100)
    assert read == b"kept\n"
    with pytest.raises(NotReadable, match="hidden"):
        read_project_file(layout, ".as-test/a.snap", hidden_folders=False, max_bytes=100)
    for name in (".env", ".git/config"):
        with pytest.raises(NotReadable) as refused:
            read_project_file(layout, name, hidden_folders=True, max_bytes=100)
        assert MARKER not in str(refused.value)
    with pytest.raises(NotReadable, match="larger than"):
        read_project_file(layout, ".as-test/a.snap", hidden_folders=True, max_bytes=2)
    with pytest.raises(FileNotFoundError):
        read_project_file(layout, ".as-test/none.snap", hidden_folders=True, max_bytes=100)
    with pytest.raises(NotReadable, match="not a file name"):
        read_project_file(layout, "\ud800.snap", hidden_folders=True, max_bytes=100)


def test_a_regular_file_anywhere_is_read_but_never_a_fifo_or_device(
    layout: Path, tmp_path: Path
) -> None:
    """``read_regular_file`` (the import scan's rules): only regular files, bounded."""
    assert read_regular_file(tmp_path / "secret.ts", 1_000) == f"// {MARKER}\n".encode()
    os.mkfifo(layout / "pipe")
    for path in (layout / "pipe", Path("/dev/zero"), layout):
        with pytest.raises(NotReadable, match="not a regular file"):
            read_regular_file(path, 1_000)


def test_a_named_file_is_followed_through_links_and_read_only_when_regular(
    tmp_path: Path,
) -> None:
    (tmp_path / "report.json").write_text("{}")
    (tmp_path / "via.json").symlink_to(tmp_path / "report.json")
    assert read_named_file(tmp_path / "via.json", 100) == b"{}"
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "to-fifo.json").symlink_to(tmp_path / "fifo")
    with pytest.raises(NotReadable, match="is not a regular file"):
        read_named_file(tmp_path / "to-fifo.json", 100)  # never opened to wait on
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(NotReadable, match="is a loop of symlinks"):
        read_named_file(tmp_path / "a", 100)
    with pytest.raises(FileNotFoundError):
        read_named_file(tmp_path / "missing.json", 100)


_STATUS = {"st_dev": 1, "st_ino": 2, "st_size": 3, "st_mtime_ns": 4, "st_ctime_ns": 5}


def status_with(**changed: int) -> os.stat_result:
    return cast(os.stat_result, SimpleNamespace(**{**_STATUS, **changed}))


@pytest.mark.parametrize("name", sorted(_STATUS))
def test_a_file_signature_changes_with_each_part_of_the_files_status(name: str) -> None:
    assert file_signature(status_with(**{name: 99})) != file_signature(status_with())


def test_a_signature_is_of_the_file_as_it_is_now(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text("[1]")
    first = file_signature(path.stat())
    assert file_signature(path.stat()) == first
    replacement = tmp_path / "r.json.tmp"
    replacement.write_text("[2]")
    os.replace(replacement, path)  # how results are written: the same size, another file
    assert file_signature(path.stat()) != first
