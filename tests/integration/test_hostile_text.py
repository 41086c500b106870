"""Spec text that tries to talk to the terminal or the CI runner (issue 38), end to end: real asc,
real as-test of both generations, real wasmtime, real doit, and for a result from the shared
cache a real nginx.

The specs of tests/fixtures/hostile put OSC 0/52/8 sequences, a screen clear, C1 CSI, CR and LF,
``::stop-commands::``, ``::error::`` and the runner's older ``##[error]`` into test and suite
names, ``log()`` lines, expectation values, plain stdout and ``abort()`` text. The output is read
as a GitHub Actions runner reads it (tests/output/github_commands.py: its line breaks, leading
blanks trimmed, both command forms): the only commands in it must be our own annotations, one per
failing expectation (a ``::stop-commands::`` that got through would silence them), and no byte a
terminal acts on may be left but our own colours.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from astest_tasks.remote.entries import Entry, decode_entry, encode_entry
from tests.integration.conftest import DoitRun, Project
from tests.integration.test_remote_cache import Machine, remote_line
from tests.integration.toolchains import Toolchain
from tests.nginx_cache import CacheServer
from tests.output.github_commands import parse_command, runner_commands

pytestmark = pytest.mark.integration

SGR = re.compile(r"\x1b\[[0-9;]*m")
# What a terminal acts on: C0 but tab and line feed, DEL, ESC, C1.
TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
EVERY_SWITCH = ("astest", "--show-logs", "--verbose", "--durations=5")
PASSING_SPEC = (
    'import { describe, expect, test } from "as-test";\n\n'
    'describe("named", () => {\n  test("passes", () => {\n    expect(1).toBe(1);\n  });\n});\n'
)
# Spec files named with what doit refuses in a task name (=) and what doit would print in a task's
# title for a runner to read (##[, a line break and ::).
AWKWARD_NAMES = ("a=b", "##[group]g", "nl\n::error::f")
TITLE = "\x1b]0;owned title\x07"


def controls_left(text: str, colour: bool) -> list[str]:
    """The control bytes in ``text`` a terminal would act on; with ``colour``, less our SGR."""
    return TERMINAL_CONTROL.findall(SGR.sub("", text) if colour else text)


def assert_only_our_annotations(run: DoitRun, project: Project) -> None:
    commands = runner_commands(run.stdout) + runner_commands(run.stderr)
    foreign = [c.line for c in commands if c.form != "::" or c.name not in ("error", "notice")]
    assert foreign == [], "spec text reached the runner as a command"
    ours = [parse_command(c.line) for c in commands]
    errors = [command for command in ours if command is not None and command.name == "error"]
    report = project.report()["specs"]
    failures = sum(len(spec["result"]["failures"]) for spec in report)
    assert len(errors) == failures > 0, "one annotation per failing expectation, none silenced"
    files = {spec["file"] for spec in report}
    assert {error.properties["file"] for error in errors} <= files


def strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def test_spec_text_reaches_a_runner_only_as_our_annotations_and_a_terminal_only_as_escapes(
    fresh_project: Callable[[str], Project], toolchain: Toolchain
) -> None:
    project = fresh_project("hostile")
    actions = {"GITHUB_ACTIONS": "true", "FORCE_COLOR": "1"}

    run = project.doit(*EVERY_SWITCH, env=actions)

    assert run.exit_code == 1, run.stdout[-3000:] + run.stderr[-3000:]
    assert SGR.sub("", run.last_line).startswith("tests: ")
    assert_only_our_annotations(run, project)
    assert controls_left(run.stdout, colour=True) == []
    assert controls_left(run.stderr, colour=True) == []
    shown = run.stdout
    if not toolchain.is_1_8:  # as-test 1.8 quotes a log() string: its line starts with '"'
        assert "\\::stop-commands::owned-by-log" in shown  # --show-logs: broken as a command
        assert "colour \\x1b[31mred" in shown  # --verbose: a log line has no colours of its own
    assert "\\::stop-commands::owned-by-abort" in shown  # abort() text
    assert "\\::error::from stdout" in shown  # the spec's plain stdout
    assert "##\\[error]from log" in shown  # the older form, anywhere in a line
    assert "name\\n::error::after LF \\x1b]0;owned title\\x07 ##\\[group]g" in shown  # --verbose
    assert "\\x1b]52;c;b3duZWQ=\\x07" in shown and "\\x1b[2J" in shown and "\\x9b2J" in shown
    # Nothing is lost: the report keeps the spec's text exactly.
    kept = set(strings_in(project.report()))
    assert f"name\n::error::after LF {TITLE} ##[group]g" in kept

    # Again, without colour (doit runs the failing specs again): no escape byte at all.
    again = project.doit("astest", env={"GITHUB_ACTIONS": "true"})

    assert again.exit_code == 1
    assert_only_our_annotations(again, project)
    assert "\x1b" not in again.stdout + again.stderr
    assert controls_left(again.stdout + again.stderr, colour=False) == []


def test_spec_files_named_with_equals_or_runner_syntax_run_like_any_other(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("hostile")
    tests_dir = project.root / "assembly" / "__tests__"
    for spec in tests_dir.iterdir():
        spec.unlink()
    for name in AWKWARD_NAMES:
        (tests_dir / f"{name}.spec.ts").write_text(PASSING_SPEC)
    actions = {"GITHUB_ACTIONS": "true"}

    listed = project.doit("astest", "--list", env=actions)

    assert listed.exit_code == 0, listed.stdout[-3000:] + listed.stderr[-3000:]
    assert "  - assembly/__tests__/nl\\n::error::f.spec.ts" in listed.stdout.splitlines()
    assert runner_commands(listed.stdout + listed.stderr) == []

    wildcard = project.doit("astest:run:wasi:*", env=actions)

    assert wildcard.exit_code == 0, wildcard.stdout[-3000:] + wildcard.stderr[-3000:]
    assert sorted(t for t in wildcard.executed if t.startswith("astest:run:")) == [
        "astest:run:wasi:##%5Bgroup]g",
        "astest:run:wasi:a%3Db",
        "astest:run:wasi:nl%0A::error::f",
    ]
    assert runner_commands(wildcard.stdout + wildcard.stderr) == []

    run = project.doit(env=actions)

    assert run.exit_code == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert run.last_line == "tests: 6 passed, 0 failed, 0 skipped"
    assert runner_commands(run.stdout) + runner_commands(run.stderr) == []
    assert controls_left(run.stdout + run.stderr, colour=False) == []
    assert {spec["file"] for spec in project.report()["specs"]} == {
        f"assembly/__tests__/{name}.spec.ts" for name in AWKWARD_NAMES
    }
    assert set(project.verdicts().values()) == {"passed"}


def test_a_repro_command_runs_the_spec_and_nothing_else_whatever_its_file_name(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("hostile")
    tests_dir = project.root / "assembly" / "__tests__"
    (tests_dir / "hostile.spec.ts").unlink()
    (tests_dir / "crash.spec.ts").rename(tests_dir / "x;touch pwned.spec.ts")

    run = project.doit()

    assert run.exit_code == 1, run.stdout[-3000:] + run.stderr[-3000:]
    records = sorted((project.root / ".as-test" / "crashes").glob("*.log"))
    assert records, "the crashing spec left no crash record"
    for record in records:
        lines = record.read_text().splitlines()
        for label in ("run", "repro"):
            (command,) = (
                line.removeprefix(f"{label}: ") for line in lines if line.startswith(f"{label}: ")
            )
            # A shell splits the line into the program and the one task, the ; inside it.
            words = shlex.split(command)
            assert words[0] == "doit" and len(words) == 2, command
            assert words[1].startswith("astest:run:") and words[1].endswith(":x;touch pwned")


def _forge_warnings(server: CacheServer, warning: str) -> int:
    """Rewrite every stored run result as a writer without a signing key could: a pass with
    ``warning`` among its warnings, stored under its own digest, its entry pointing at it."""
    forged = 0
    for path in (server.stored / "ac").iterdir():
        entry = decode_entry(path.name, path.read_bytes(), None)
        if entry.meta.get("kind") != "run":
            continue
        lines = (server.stored / "cas" / entry.blobs["result"]).read_bytes().split(b"\n")
        head = json.loads(lines[0])
        head["warnings"] = [warning]
        lines[0] = json.dumps(head, separators=(",", ":")).encode("utf-8")
        data = b"\n".join(lines)
        digest = hashlib.sha256(data).hexdigest()
        (server.stored / "cas" / digest).write_bytes(data)
        blobs = {**entry.blobs, "result": digest}
        path.write_bytes(encode_entry(path.name, Entry(blobs, entry.meta), None))
        forged += 1
    return forged


@pytest.mark.toolchains("1.0.7")
def test_warnings_of_a_result_from_the_shared_cache_are_shown_inert(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    url = cache_server.url()
    assert Machine(tmp_path / "writer", toolchain).doit(url).exit_code == 0
    warning = f"::stop-commands::owned\n  ::error::planted\r##[error]older {TITLE}\x1b[2J"
    assert _forge_warnings(cache_server, warning) == 10
    reader = Machine(tmp_path / "reader", toolchain)

    run = reader.doit(url, GITHUB_ACTIONS="true", FORCE_COLOR="1")

    assert run.exit_code == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert SGR.sub("", remote_line(run)).startswith("remote cache: 20 hits")
    assert runner_commands(run.stdout) + runner_commands(run.stderr) == []
    assert controls_left(run.stdout + run.stderr, colour=True) == []
    shown = [line for line in run.stdout.splitlines() if "::stop-commands::owned" in line]
    assert len(shown) == 10
    assert all(
        line.endswith(
            "::stop-commands::owned\\n  ::error::planted\\r##\\[error]older "
            "\\x1b]0;owned title\\x07\\x1b[2J"
        )
        for line in shown
    )
