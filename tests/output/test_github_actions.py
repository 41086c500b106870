"""github_actions.py: one ::error command per failing expectation, read back by a parser of
GitHub's documented grammar (github_commands.py, as the runner reads a log line)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from astest_tasks.model.guest_report import FailureDetail
from astest_tasks.model.results import Stage, Status
from astest_tasks.output.console import Shown
from astest_tasks.output.github_actions import (
    Annotation,
    annotation_lines,
    in_github_actions,
    print_annotations,
    repository_root,
)
from tests.conftest import make_spec_result
from tests.output.github_commands import commands_in, parse_command


def failure(title: str, location: str = "8:5", **given: str | None) -> FailureDetail:
    fields: dict[str, str | None] = {"expected": "5", "actual": "4", "message": ""}
    fields.update(given)
    return FailureDetail(
        title, location, "toBe", fields["expected"], fields["actual"], fields["message"] or ""
    )


def failing(spec_id: str, *failures: FailureDetail, mode: str = "wasi") -> Shown:
    result = make_spec_result(spec_id, Status.FAILED, mode=mode, failure_list=failures)
    return Shown(result, cached=False)


def test_each_failing_expectation_is_an_error_on_its_line(tmp_path: Path) -> None:
    shown = [
        Shown(make_spec_result("fine"), False),
        failing("math", failure("adds > small#1"), failure("adds > big#2", "11:9")),
    ]
    commands = commands_in("\n".join(annotation_lines(shown, tmp_path, tmp_path)))
    assert [(c.name, c.properties) for c in commands] == [
        (
            "error",
            {
                "file": "assembly/__tests__/math.spec.ts",
                "line": "8",
                "col": "5",
                "title": "adds > small#1 [wasi]",
            },
        ),
        (
            "error",
            {
                "file": "assembly/__tests__/math.spec.ts",
                "line": "11",
                "col": "9",
                "title": "adds > big#2 [wasi]",
            },
        ),
    ]
    assert commands[0].data == "matcher: toBe\nexpected: 5\nreceived: 4"


def test_a_crash_or_build_failure_is_annotated_on_its_file_with_its_message(
    tmp_path: Path,
) -> None:
    crash = FailureDetail("io.spec.ts#1", "", "build failed", None, None, "ERROR TS2322: a, b")
    result = make_spec_result("io", Status.FAILED, stage=Stage.BUILD, failure_list=(crash,))
    [command] = commands_in("\n".join(annotation_lines([Shown(result, False)], tmp_path, tmp_path)))
    assert command.properties == {
        "file": "assembly/__tests__/io.spec.ts",
        "title": "io.spec.ts#1 [wasi]",
    }
    assert command.data == "build failed\nERROR TS2322: a, b"


def test_past_the_cap_one_notice_says_how_many_more(tmp_path: Path) -> None:
    shown = [failing(f"s{i}", failure("t#1"), failure("t#2")) for i in range(4)]
    commands = commands_in("\n".join(annotation_lines(shown, tmp_path, tmp_path, cap=5)))
    assert [c.name for c in commands] == ["error"] * 5 + ["notice"]
    assert commands[-1].data.startswith(
        "3 more failing expectations are not annotated (the first 5"
    )


# Text that must survive the trip: the escapes' own characters, separators, line ends, "::".
nasty = st.text(alphabet=st.sampled_from(list("%:,\r\n=a b::%25%0A")), max_size=30)


@given(title=nasty, message=nasty, file=nasty)
def test_properties_and_message_read_back_exactly(title: str, message: str, file: str) -> None:
    # The runner trims the property list, so a last value must not end in white space: ours,
    # the title, always ends with the mode's "]".
    title = f"{title} [wasi]"
    line = Annotation(file or "f", 3, 4, title, message).command()
    assert "\n" not in line and "\r" not in line  # one log line
    command = parse_command(line)
    assert command is not None and command.name == "error"
    assert command.properties == {
        "file": file or "f",
        "line": "3",
        "col": "4",
        "title": title,
    }
    assert command.data == message


def test_the_file_is_relative_to_the_repository_holding_the_project(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    project = tmp_path / "packages" / "lib"
    project.mkdir(parents=True)
    assert repository_root(project, {}) == tmp_path.resolve()
    [command] = commands_in(
        "\n".join(annotation_lines([failing("m", failure("t#1"))], project, tmp_path))
    )
    assert command.properties["file"] == "packages/lib/assembly/__tests__/m.spec.ts"


def test_without_git_the_workspace_then_the_project_is_the_root(tmp_path: Path) -> None:
    project = tmp_path / "sub"
    project.mkdir()
    if any((folder / ".git").exists() for folder in tmp_path.resolve().parents):
        pytest.skip("the temporary folder is inside a git work tree")
    assert repository_root(project, {"GITHUB_WORKSPACE": str(tmp_path)}) == tmp_path.resolve()
    assert repository_root(project, {"GITHUB_WORKSPACE": "/elsewhere"}) == project.resolve()


def test_only_github_actions_own_value_turns_it_on() -> None:
    assert in_github_actions({"GITHUB_ACTIONS": "true"})
    assert not in_github_actions({"GITHUB_ACTIONS": "1"}) and not in_github_actions({})


def test_printed_before_anything_else_and_nothing_without_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    print_annotations([Shown(make_spec_result("fine"), False)], tmp_path)
    assert out.getvalue() == ""
    print_annotations([failing("m", failure("t#1"))], tmp_path)
    assert [c.name for c in commands_in(out.getvalue())] == ["error"]


def test_nothing_a_spec_controls_reaches_the_log_raw_even_on_a_colour_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A colour is a spec's here (our commands have none): conceal (8) would hide the text."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    hostile = "\x1b[8mhidden\x1b[0m \x1b]0;pwn\x07 \x9b2J \x01"
    detail = FailureDetail(f"t{hostile}#1", "3:5", f"to{hostile}", "1", f"2{hostile}", hostile)
    result = make_spec_result(
        "m", Status.FAILED, spec=f"assembly/__tests__/m{hostile}.spec.ts", failure_list=(detail,)
    )
    print_annotations([Shown(result, False)], tmp_path)
    printed = out.getvalue()

    assert not any(control in printed for control in "\x1b\x07\x9b\x01")
    [command] = commands_in(printed)
    shown = "\\x1b[8mhidden\\x1b[0m \\x1b]0;pwn\\x07 \\x9b2J \\x01"
    assert command.properties["title"] == f"t{shown}#1 [wasi]"
    assert command.properties["file"] == f"assembly/__tests__/m{shown}.spec.ts"
    assert command.data.endswith(shown)
