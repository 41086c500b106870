"""Every file a task depends on is a regular file, or missing: a FIFO there would have doit,
which reads each to see whether it changed, wait for ever (tasks/input_files.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.tasks.checks import TargetsAreFiles
from astest_tasks.tasks.input_files import InputFiles


def task(*file_dep: str) -> dict[str, object]:
    return {"basename": "astest", "name": "run:wasi:math", "file_dep": list(file_dep)}


def test_regular_files_links_to_them_and_missing_files_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("spec.ts").write_text("// a spec")
    Path("via.ts").symlink_to("spec.ts")
    inputs = InputFiles()
    inputs.check(task("spec.ts", "via.ts", "not-yet.ts"))
    assert sorted(inputs._seen) == ["not-yet.ts", "spec.ts", "via.ts"]


@pytest.mark.parametrize("how", ["fifo", "link to a fifo", "folder"])
def test_a_file_that_is_not_regular_stops_the_call_naming_it_and_the_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.chdir(tmp_path)
    if how == "folder":
        Path("runner.py").mkdir()
    elif how == "fifo":
        os.mkfifo("runner.py")
    else:
        os.mkfifo("elsewhere")
        Path("runner.py").symlink_to("elsewhere")
    with pytest.raises(UserError) as error:
        InputFiles().check(task("runner.py"))
    assert str(error.value) == (
        "runner.py is not a regular file (a FIFO, a device or a folder, or a link to one), and "
        "doit reads every file a task depends on (astest:run:wasi:math) to see whether it "
        "changed; fix: delete it, or put the file it should be in its place"
    )


def test_a_name_with_control_characters_is_shown_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    os.mkfifo("x\x1b]0;title\x07.ts")
    with pytest.raises(UserError) as error:
        InputFiles().check(task("x\x1b]0;title\x07.ts"))
    assert str(error.value).startswith("x\\x1b]0;title\\x07.ts is not a regular file")


def test_a_file_an_earlier_task_makes_is_left_to_that_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run's build record: the build's TargetsAreFiles has it made again before doit reads it.
    monkeypatch.chdir(tmp_path)
    os.mkfifo("math.build.json")
    build = {
        "basename": "astest",
        "name": "build:wasi:math",
        "targets": ["math.build.json"],
        "uptodate": [TargetsAreFiles(str(tmp_path), ["math.build.json"])],
    }
    inputs = InputFiles()
    inputs.check(build)
    inputs.check(task("math.build.json"))
    # A task that makes it only when it is missing (a runner script) mends nothing.
    runner = {**build, "uptodate": [True]}
    for before in ([], [runner]):
        checked = InputFiles()
        for earlier in before:
            checked.check(earlier)
        with pytest.raises(UserError, match=r"^math\.build\.json is not a regular file"):
            checked.check(task("math.build.json"))
