"""report.tap: a test line says what it says, whatever a spec calls its tests and files."""

from __future__ import annotations

import re

import pytest

from astest_tasks.model.guest_report import Expectation, Suite, Verdict
from astest_tasks.model.results import SpecResult, Status
from astest_tasks.output.formats.tap import tap_document
from tests.conftest import make_spec_result

_TEST_LINE = re.compile(r"(not )?ok \d+ - ")
# What a terminal acts on: C0 but line feed, DEL and C1; and lone surrogates, which no UTF-8 holds.
NOT_INERT = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def read_test_line(line: str) -> tuple[bool, str, str]:
    """(ok, description, directive) as TAP 14 reads a test line ("Escaping"): in a description
    ``\\\\`` is a backslash and ``\\#`` a hash, and the first ``#`` not escaped starts the
    directive. tap.py's parser ends a description at any ``#``, so it cannot judge this."""
    start = _TEST_LINE.match(line)
    assert start is not None, line
    rest = line[start.end() :]
    description: list[str] = []
    position = 0
    while position < len(rest):
        character = rest[position]
        if character == "\\" and rest[position + 1 : position + 2] in ("\\", "#"):
            description.append(rest[position + 1])
            position += 2
        elif character == "#":
            return not start.group(1), "".join(description).rstrip(), rest[position + 1 :].strip()
        else:
            description.append(character)
            position += 1
    return not start.group(1), "".join(description), ""


def one_test(name: str, verdict: Verdict, spec: str = "assembly/__tests__/t.spec.ts") -> SpecResult:
    expectation = Expectation(0, verdict, "toBe", "", "3:5", "2", "3", "")
    kind = "xtest" if verdict is Verdict.SKIP else "test"
    test = Suite(name, kind, 0, verdict, 0.0, 1.0, (), (expectation,), ())
    status = {Verdict.FAIL: Status.FAILED, Verdict.OK: Status.PASSED}.get(verdict, Status.SKIPPED)
    return make_spec_result("t", status, spec=spec, suites=(test,))


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("adds \\# TODO", "adds \\# TODO"),  # the finding: read as a TODO, not counted
        ("adds \\\\# SKIP", "adds \\\\# SKIP"),
        ("two backslashes \\\\ stay two", "two backslashes \\\\ stay two"),
        ("osc \x1b]0;pwn\x07 # TODO", "osc \\x1b]0;pwn\\x07 # TODO"),  # shown, not acted on
        ("csi \x9b2J and \ud800", "csi \\x9b2J and \\ud800"),
    ],
)
def test_a_failing_tests_line_reads_back_as_its_name_and_a_failure_with_no_directive(
    name: str, shown: str
) -> None:
    document = tap_document([one_test(name, Verdict.FAIL)])
    (line,) = [line for line in document.splitlines() if _TEST_LINE.match(line)]

    assert read_test_line(line) == (False, f"wasi assembly/__tests__/t.spec.ts > {shown}", "")
    assert not NOT_INERT.search(document)


def test_a_file_name_and_a_skipped_test_read_back_and_only_skip_is_a_directive() -> None:
    spec = "assembly/__tests__/a\\#b\x1b.spec.ts"
    document = tap_document([one_test("later \\# x", Verdict.SKIP, spec)])
    (line,) = [line for line in document.splitlines() if _TEST_LINE.match(line)]

    expected = "wasi assembly/__tests__/a\\#b\\x1b.spec.ts > later \\# x"
    assert read_test_line(line) == (True, expected, "SKIP")
