"""What a GitHub Actions job reads of a run (when ``GITHUB_ACTIONS=true``): an ``::error`` workflow
command per failing expectation, which GitHub shows as an annotation on the spec's line, and a
Markdown summary appended to the step's ``$GITHUB_STEP_SUMMARY`` file (step_summary.py).

The command is as as-test 1.0.7's TAP reporter wrote it (``emitGitHubAnnotation`` in
``bin/reporters/tap.js``, removed in 1.7): ``::error file=F,line=L,col=C,title=T::MESSAGE``, the
location parsed as its ``parseLocation`` does, properties and message escaped as GitHub's
toolkit escapes them (``%`` first, so an escape is never escaped twice). Ours names the test and
mode in the title (as-test wrote "as-test") and the matcher, expected and received values in the
message, and the file is relative to the repository root, which is what GitHub matches against
the diff, not to the project root when the project sits in a subfolder.

GitHub keeps 10 error annotations per step and 50 per job; the rest still show as errors in the
log. We write at most ``ANNOTATION_CAP`` and then one ``::notice`` saying how many more failed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import inert_field, own_commands_for_stream
from astest_tasks.core.terminal_env import in_github_actions as in_github_actions
from astest_tasks.model.guest_report import FailureDetail
from astest_tasks.model.locations import parse_location
from astest_tasks.model.results import Status
from astest_tasks.model.test_cases import failure_text
from astest_tasks.output.console import Shown
from astest_tasks.output.terminal import output_stream

ANNOTATION_CAP = 50
MESSAGE_LIMIT = 4000  # characters of a message: a compiler's diagnostics can run for pages


def escape_data(text: str) -> str:
    """A command's message: GitHub reads ``%25``, ``%0D`` and ``%0A`` back."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property's value: also ``:`` and ``,``, which end the properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(name: str, properties: Sequence[tuple[str, str]], message: str) -> str:
    """One line. GitHub's escapes cover only ``%``, CR and LF (and ``:`` and ``,`` in a property),
    so any other control character (ESC, BEL, a colour, C1) left in it is a spec's: shown as its
    escape (``\\x1b``), as in every field we print, the command's text as the spec wrote it."""
    listed = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return inert_field(f"::{name}{' ' + listed if listed else ''}::{escape_data(message)}")


@frozen
class Annotation:
    file: str  # relative to the repository root, /-separated
    line: int  # 0: none known
    column: int
    title: str
    message: str

    def command(self) -> str:
        properties = [("file", self.file)]
        if self.line:
            properties.append(("line", str(self.line)))
        if self.column:
            properties.append(("col", str(self.column)))
        properties.append(("title", self.title))
        return workflow_command("error", properties, self.message)


def annotation_lines(
    shown: Sequence[Shown], project_root: Path, repository: Path, cap: int = ANNOTATION_CAP
) -> list[str]:
    """The ``::error`` commands of every failing expectation, at most ``cap``, and a notice of
    how many more there were."""
    lines: list[str] = []
    more = 0
    for annotation in _annotations(shown, project_root, repository):
        if len(lines) < cap:
            lines.append(annotation.command())
        else:
            more += 1
    if more:
        notice = (
            f"{more} more failing expectations are not annotated (the first {cap} are); the "
            "step summary, report.json and junit.xml list every failure"
        )
        lines.append(workflow_command("notice", [("title", "astest")], notice))
    return lines


def _annotations(
    shown: Sequence[Shown], project_root: Path, repository: Path
) -> Iterator[Annotation]:
    for item in shown:
        result = item.result
        if result.status is not Status.FAILED:
            continue
        file = _relative(project_root / result.spec, repository)
        for failure in result.failures:
            line, column = parse_location(failure.location)
            yield Annotation(
                file, line, column, f"{failure.title} [{result.mode}]", failure_message(failure)
            )


def failure_message(failure: FailureDetail) -> str:
    """The matcher, expected and received values (as junit.xml gives them), or a crash's or
    compile error's own message."""
    if failure.expected is None and failure.actual is None:
        text = "\n".join(part for part in (failure.matcher, failure.message) if part)
    else:
        text = failure_text(failure.matcher, failure.expected, failure.actual, failure.message)
    text = text or "assertion failed"
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1] + "…"


def repository_root(project_root: Path, environ: Mapping[str, str]) -> Path:
    """The git work tree holding the project (a ``.git`` folder or file), else the job's
    workspace (``GITHUB_WORKSPACE``) when it holds the project, else the project root."""
    resolved = project_root.resolve()
    for folder in (resolved, *resolved.parents):
        if (folder / ".git").exists():
            return folder
    workspace = environ.get("GITHUB_WORKSPACE", "")
    if workspace and resolved.is_relative_to(Path(workspace).resolve()):
        return Path(workspace).resolve()
    return resolved


def _relative(path: Path, repository: Path) -> str:
    return Path(os.path.relpath(path.resolve(), repository)).as_posix()


def print_annotations(shown: Sequence[Shown], project_root: Path) -> None:
    """Write the commands to stdout, where the runner reads them, before the summary (whose
    last line stays the tests count)."""
    lines = annotation_lines(shown, project_root, repository_root(project_root, os.environ))
    if lines:
        stream = output_stream()
        stream.write(own_commands_for_stream("\n".join(lines) + "\n", stream))
        stream.flush()
