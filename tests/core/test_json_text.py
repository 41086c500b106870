"""Reading JSON: too deep a nesting is a bad document like any other, on every route in."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from astest_tasks.build.compiler import BuildRecord
from astest_tasks.config.shards import load_durations
from astest_tasks.config.toolchain import find_package
from astest_tasks.core.errors import UserError
from astest_tasks.core.json_text import (
    JsonNestingError,
    finite_number,
    parse_json,
    reject_constant,
)
from astest_tasks.fuzz.fuzzer_report import FuzzReportError, parse_fuzz_report
from astest_tasks.fuzz.results import FuzzResult
from astest_tasks.model.guest_report import ReportError
from astest_tasks.model.report_parsing import parse_report
from astest_tasks.model.results import SpecResult
from astest_tasks.output.duration_history import load_history
from astest_tasks.output.merge_reports import merge_reports
from astest_tasks.output.report_state import load_state
from astest_tasks.remote.entries import NotAnEntry, decode_entry
from astest_tasks.run.wipc import parse_call

PACKAGE = Path(__file__).resolve().parents[2] / "astest_tasks"
# Far deeper than Python's parser follows by recursion (about a thousand levels).
DEEP_ARRAY = "[" * 200_000 + "]" * 200_000
DEEP_OBJECT = '{"a":' * 200_000 + "1" + "}" * 200_000


@pytest.mark.parametrize("text", [DEEP_ARRAY, DEEP_OBJECT, DEEP_ARRAY.encode()])
def test_too_deep_a_nesting_is_a_json_decode_error(text: str | bytes) -> None:
    with pytest.raises(json.JSONDecodeError) as caught:
        parse_json(text)
    assert isinstance(caught.value, JsonNestingError)
    assert str(caught.value) == (
        "nested too deeply to read (more levels than a JSON reader follows)"
    )


def test_a_document_within_reach_reads_as_json_loads_reads_it() -> None:
    text = '{"a": [1, 2.5, "x", null, true, {"b": []}]}'
    assert parse_json(text) == json.loads(text)
    assert parse_json("[" * 50 + "]" * 50) == json.loads("[" * 50 + "]" * 50)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_reject_constant_refuses_what_json_parse_refuses(constant: str) -> None:
    with pytest.raises(ValueError, match=f"{constant} is not valid JSON"):
        parse_json(f"[{constant}]", parse_constant=reject_constant)


def _json_loads_outside_the_door() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).as_posix() == "core/json_text.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("loads", "load")
                and isinstance(node.value, ast.Name)
                and node.value.id == "json"
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def test_every_json_document_is_read_through_parse_json() -> None:
    """A new ``json.loads`` elsewhere would bring the RecursionError traceback back."""
    assert _json_loads_outside_the_door() == []


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# Each route a document of someone else's comes in by, and what it does with a bad document.
ROUTES: dict[str, Callable[[Path], object]] = {
    "result record": lambda tmp: SpecResult.from_json(DEEP_ARRAY),
    "build record": lambda tmp: BuildRecord.from_json(DEEP_ARRAY),
    "fuzz result": lambda tmp: FuzzResult.from_json(DEEP_ARRAY),
    "guest report": lambda tmp: parse_report(DEEP_ARRAY.encode()),
    "guest fuzz report": lambda tmp: parse_fuzz_report(DEEP_ARRAY.encode()),
    "guest CALL": lambda tmp: parse_call(DEEP_OBJECT.encode()),
    "remote entry": lambda tmp: decode_entry("k" * 64, DEEP_ARRAY.encode(), None),
    "package.json": lambda tmp: find_package(
        tmp, (_write(tmp, "node_modules/pkg/package.json", DEEP_ARRAY), "pkg")[1]
    ),
    "--shard-durations report": lambda tmp: load_durations(_write(tmp, "r.json", DEEP_ARRAY)),
    "astest merge report": lambda tmp: merge_reports([_write(tmp, "r.json", DEEP_ARRAY)], tmp),
}
EXPECTED: dict[str, type[Exception]] = {
    "guest report": ReportError,
    "guest fuzz report": FuzzReportError,
    "remote entry": NotAnEntry,
    "package.json": UserError,
    "--shard-durations report": UserError,
    "astest merge report": UserError,
}


@pytest.mark.parametrize("route", list(ROUTES))
def test_every_route_turns_too_deep_a_document_into_its_own_error(
    route: str, tmp_path: Path
) -> None:
    with pytest.raises(EXPECTED.get(route, ValueError)) as caught:
        ROUTES[route](tmp_path)
    assert not isinstance(caught.value, RecursionError)
    assert "nested too deeply" in str(caught.value) or isinstance(caught.value, NotAnEntry)


def test_state_files_too_deep_to_read_count_as_absent(tmp_path: Path) -> None:
    assert load_state(_write(tmp_path, "report-state.json", DEEP_ARRAY)) is None
    assert load_history(_write(tmp_path, "history.json", DEEP_ARRAY)) == {}


def test_a_config_nested_200000_deep_is_one_error_line_with_exit_3(tmp_path: Path) -> None:
    """The probe's case, through the `astest` command: no traceback, the file and the fix."""
    (tmp_path / "as-test.config.json").write_text('{"env":' + DEEP_ARRAY + "}", "utf-8")
    (tmp_path / "package.json").write_text('{"name": "p"}', "utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "astest_tasks"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.splitlines() == [
        "ERROR: as-test.config.json: invalid JSON: nested too deeply to read (more levels than "
        "a JSON reader follows); fix: no setting nests more than a few levels: rewrite the file "
        "from the documented keys"
    ]


@pytest.mark.parametrize(
    ("value", "number"),
    [
        (1, 1.0),
        (-2.5, -2.5),
        (0, 0.0),
        (True, None),  # JSON's true is not 1
        ("1", None),
        (None, None),
        (float("nan"), None),  # Python's json reads NaN and Infinity
        (float("inf"), None),
        (10**400, None),  # past any float: float() raises OverflowError
        (-(10**400), None),
    ],
)
def test_a_finite_number_is_a_json_number_a_float_can_hold(
    value: object, number: float | None
) -> None:
    assert finite_number(value) == number
