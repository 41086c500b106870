"""SpecResult: the stored JSON of one spec's result in one mode."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.coverage.model import CoveragePoint, ReportCoverage
from astest_tasks.model.guest_report import Counts, Expectation, FailureDetail, Suite, Verdict
from astest_tasks.model.results import (
    RESULT_FORMAT,
    RESULT_SUFFIX,
    SnapshotCounts,
    SpecResult,
    Stage,
    Status,
    forget_kept_heads,
    parse_stored,
    previous_result_path,
    read_result,
    read_result_bytes,
    read_result_file,
    read_result_head,
    read_stored,
    result_file_text,
    status_of,
    write_result,
)
from tests.conftest import make_spec_result
from tests.fifo_guard import fifo_symlink, without_waiting


def sample_result() -> SpecResult:
    expectation = Expectation(
        order=0,
        verdict=Verdict.FAIL,
        instr="toBe",
        message="sums differ",
        location="12:7",
        left="3",
        right="4",
        kind="",
    )
    suite = Suite(
        description="math",
        kind="describe",
        depth=0,
        verdict=Verdict.FAIL,
        start_ms=1.5,
        end_ms=2.25,
        suites=(),
        tests=(expectation,),
        logs=("log line ✓",),
    )
    return make_spec_result(
        "math",
        Status.FAILED,
        counts=Counts(0, 1, 0, 2, 1, 0, 0.75),
        failure_list=(FailureDetail("math#1", "12:7", "toBe", "4", "3", "sums differ"),),
        suites=(suite,),
        duration_s=0.125,
        session="session-1",
        build_command="node asc.js math.spec.ts",
        warnings=("toThrow() is disabled",),
        written=("wrote .as-test/snapshots/a.spec.snap: 1 snapshot(s) created, 0 updated",),
        output="hello ünïcode\n",
        snapshots=SnapshotCounts(matched=2, missing=1, mismatched=0, missing_keys=("k [x]",)),
    )


def test_spec_result_json_round_trip() -> None:
    result = sample_result()
    assert SpecResult.from_json(result.to_json()) == result


def test_coverage_points_survive_the_result_file() -> None:
    coverage = ReportCoverage(
        total=2,
        covered=1,
        uncovered=1,
        percent=50.0,
        points=(
            CoveragePoint("a1", "assembly/src/a.ts", 3, 7, "Block", True),
            CoveragePoint("b2", "assembly/src/a.ts", 9, 1, "Expression", False),
        ),
    )
    result = replace(sample_result(), coverage=coverage)
    restored = SpecResult.from_json(result.to_json())
    assert restored.coverage == coverage


def test_a_result_file_from_before_coverage_still_loads() -> None:
    data = json.loads(sample_result().to_json())
    del data["coverage"]
    restored = SpecResult.from_json(json.dumps(data))
    assert restored.coverage is None
    assert restored == sample_result()


def test_build_failure_result_round_trips_with_defaults() -> None:
    result = make_spec_result(
        "a",
        Status.FAILED,
        spec="a.spec.ts",
        mode="default",
        target="bindings",
        stage=Stage.BUILD,
        duration_s=1.0,
        build_command="node asc.js a.spec.ts",
        error="ERROR TS2304: Cannot find name 'x'.",
    )
    assert (result.counts, result.failures, result.warnings) == (Counts.zero(), (), ())
    restored = SpecResult.from_json(result.to_json())
    assert restored == result
    assert restored.snapshots == SnapshotCounts()


def test_to_json_keeps_non_ascii_text_readable() -> None:
    text = sample_result().to_json()
    assert "ünïcode" in text
    assert json.loads(text)["format"] == RESULT_FORMAT


def test_write_then_read_result(tmp_path: Path) -> None:
    path = tmp_path / "results" / "math.json"
    path.parent.mkdir()
    write_result(path, sample_result())
    assert read_result(path) == sample_result()


def test_a_head_read_twice_is_decoded_once_and_read_again_when_it_changes(
    tmp_path: Path,
) -> None:
    """The up-to-date check reads a result's head line, the summary the whole file: the second
    read of the same head is the result the first decoded (results hold only immutable values)."""
    path = tmp_path / "results" / "math.json"
    path.parent.mkdir()
    write_result(path, replace(sample_result(), session="kept-head"))
    first = read_result_head(path)
    stored = read_stored(path)
    assert first is not None and stored is not None
    assert stored.result is first
    write_result(path, replace(sample_result(), session="another-head"))
    again = read_result_head(path)
    assert again is not None and again.session == "another-head"
    path.write_text('{"format": 99}\n[]\n[]\n', encoding="utf-8")
    assert (read_result_head(path), read_result_head(path)) == (None, None)


def test_a_kept_head_is_forgotten_with_the_call_and_a_long_one_is_never_kept(
    tmp_path: Path,
) -> None:
    path = tmp_path / "math.json"
    write_result(path, replace(sample_result(), session="forgotten-head"))
    first = read_result_head(path)
    forget_kept_heads()
    again = read_result_head(path)
    assert first == again and first is not again
    write_result(path, replace(sample_result(), output="x" * 20000))
    long_once, long_twice = read_result_head(path), read_result_head(path)
    assert long_once == long_twice and long_once is not long_twice


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json at all",
        "[1, 2, 3]",
        '{"format": 99}',
        '{"format": 1}',
        '{"format": 1, "spec": "a"}',
    ],
)
def test_read_result_returns_none_for_garbage(tmp_path: Path, text: str) -> None:
    path = tmp_path / "result.json"
    path.write_text(text, encoding="utf-8")
    assert read_result(path) is None


def test_read_result_returns_none_for_an_unknown_status(tmp_path: Path) -> None:
    data = json.loads(sample_result().to_json())
    data["status"] = "exploded"
    path = tmp_path / "result.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert read_result(path) is None


def test_read_result_returns_none_for_a_missing_file(tmp_path: Path) -> None:
    assert read_result(tmp_path / "absent.json") is None


def test_read_result_returns_none_for_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(b"\xff\xfe{")
    assert read_result(path) is None


@pytest.mark.parametrize("field", ["counts", "snapshots"])
def test_read_result_returns_none_for_a_field_of_the_wrong_type(tmp_path: Path, field: str) -> None:
    data = json.loads(sample_result().to_json())
    data[field] = None
    path = tmp_path / "result.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert read_result(path) is None


def test_the_result_file_is_a_head_line_a_suites_line_and_a_test_cases_line(
    tmp_path: Path,
) -> None:
    from astest_tasks.model.results import read_result_head, read_stored
    from astest_tasks.model.test_cases import test_cases

    path = tmp_path / "r.json"
    write_result(path, sample_result())
    head_line, suites_line, cases_line = path.read_text(encoding="utf-8").splitlines()
    assert len(json.loads(cases_line)) == 1
    assert "suites" not in json.loads(head_line)
    assert json.loads(suites_line)[0]["description"] == "math"
    assert read_result_head(path) == replace(sample_result(), suites=())
    stored = read_stored(path)
    assert stored is not None and stored.full() == sample_result()
    assert SpecResult.from_json(stored.whole_json()) == sample_result()
    assert stored.test_cases() == test_cases(sample_result().suites)


def test_a_result_of_the_old_single_document_format_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    data = json.loads(sample_result().to_json())
    data["format"] = 1
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    assert read_result(path) is None


@pytest.mark.parametrize(
    ("verdict", "status"),
    [
        (Verdict.FAIL, Status.FAILED),
        (Verdict.OK, Status.PASSED),
        (Verdict.SKIP, Status.SKIPPED),
        (Verdict.NONE, Status.SKIPPED),
    ],
)
def test_one_rule_turns_a_files_verdict_into_its_status(verdict: Verdict, status: Status) -> None:
    assert status_of(verdict) is status


# A result file exactly as the version before this codec wrote it (format 3), with coverage
# points plain and detailed: it must still load, and this version must write the same lines.
PREVIOUS_VERSION_FILE = (
    '{"format":3,"spec":"a.spec.ts","spec_id":"a","mode":"default","target":"wasi",'
    '"status":"failed","stage":"run","counts":{"suites_passed":0,"suites_failed":1,'
    '"suites_skipped":0,"tests_passed":2,"tests_failed":1,"tests_skipped":0,"time_ms":0.75},'
    '"failures":[{"title":"math#1","location":"12:7","matcher":"toBe","expected":"4",'
    '"actual":"3","message":"sums differ"}],"duration_s":0.125,"session":"s1",'
    '"build_command":"node asc.js a.spec.ts","error":"","warnings":["w"],"written":["wrote x"],'
    '"output":"hé\\n","snapshots":{"matched":2,"missing":1,"mismatched":0,'
    '"missing_keys":["k [x]"],"created":0,"updated":1},"coverage":{"total":2,"covered":1,'
    '"uncovered":1,"percent":50.0,"points":[{"hash":"a1","file":"a.ts","line":3,"column":7,'
    '"type":"Block","executed":true},{"hash":"b2","file":"a.ts","line":9,"column":1,'
    '"type":"Function","executed":false,"parentHash":"a1","scopeKind":"Function",'
    '"scopeName":"add","depth":1}]},"every_block_is_suite":true}\n'
    '[{"description":"math","kind":"describe","depth":0,"verdict":"fail","start_ms":1.5,'
    '"end_ms":2.25,"suites":[],"tests":[[0,"fail","toBe","sums differ","12:7","3","4",""]],'
    '"logs":["log ✓"]}]\n'
    '[["math", "fail", "sums differ", "matcher: toBe\\nexpected: 4\\nreceived: 3\\nmessage: '
    'sums differ", "12:7", "toBe", 0, 1, 0]]\n'
)


def previous_version_result() -> SpecResult:
    expectation = Expectation(0, Verdict.FAIL, "toBe", "sums differ", "12:7", "3", "4", "")
    suite = Suite("math", "describe", 0, Verdict.FAIL, 1.5, 2.25, (), (expectation,), ("log ✓",))
    detailed = CoveragePoint("b2", "a.ts", 9, 1, "Function", False, "a1", "Function", "add", 1)
    return SpecResult(
        spec="a.spec.ts",
        spec_id="a",
        mode="default",
        target="wasi",
        status=Status.FAILED,
        stage=Stage.RUN,
        counts=Counts(0, 1, 0, 2, 1, 0, 0.75),
        failures=(FailureDetail("math#1", "12:7", "toBe", "4", "3", "sums differ"),),
        suites=(suite,),
        duration_s=0.125,
        session="s1",
        build_command="node asc.js a.spec.ts",
        warnings=("w",),
        written=("wrote x",),
        output="hé\n",
        snapshots=SnapshotCounts(2, 1, 0, ("k [x]",), 0, 1),
        coverage=ReportCoverage(
            2, 1, 1, 50.0, (CoveragePoint("a1", "a.ts", 3, 7, "Block", True), detailed)
        ),
        every_block_is_suite=True,
    )


def test_a_result_file_of_the_previous_version_loads_and_is_written_the_same() -> None:
    stored = parse_stored(PREVIOUS_VERSION_FILE.encode("utf-8"))
    assert stored is not None
    assert stored.full() == previous_version_result()
    assert result_file_text(previous_version_result()) == PREVIOUS_VERSION_FILE


def test_a_wrong_field_in_the_head_is_unreadable_and_named() -> None:
    head = json.loads(PREVIOUS_VERSION_FILE.splitlines()[0])
    head["counts"]["tests_failed"] = "1"
    with pytest.raises(ValueError, match=r"^counts\.tests_failed: should be an integer"):
        SpecResult.from_head(head, [])
    text = PREVIOUS_VERSION_FILE.replace('"tests_failed":1', '"tests_failed":"1"')
    assert parse_stored(text.encode("utf-8")) is None


def test_a_result_under_the_previous_name_is_read_until_written_under_the_new_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / f"a{RESULT_SUFFIX}"
    assert path.name == "a.result.jsonl"
    previous = tmp_path / "a.result.json"
    previous.write_text(PREVIOUS_VERSION_FILE, encoding="utf-8")
    assert read_result(path) == previous_version_result()
    assert read_result_head(path) == replace(previous_version_result(), suites=())
    assert read_result_bytes(path) == PREVIOUS_VERSION_FILE.encode("utf-8")

    write_result(path, replace(previous_version_result(), session="s2"))
    assert not previous.exists(), "the old name was read for the last time"
    assert read_result(path) == replace(previous_version_result(), session="s2")


def test_the_new_name_wins_over_a_file_left_under_the_previous_one(tmp_path: Path) -> None:
    (tmp_path / "a.result.json").write_text(PREVIOUS_VERSION_FILE, encoding="utf-8")
    write_text_atomic(tmp_path / "a.result.jsonl", result_file_text(sample_result()))
    assert read_result(tmp_path / "a.result.jsonl") == sample_result()
    assert previous_result_path("x/a.result.jsonl") == "x/a.result.json"
    assert previous_result_path("x/a.fuzz.result.json") is None


def _lines_as_first_read(data: bytes) -> tuple[str, str, str] | None:
    """How the summary split a result file before it kept the bytes (the rule parse_stored
    must keep): decode it all, cut at the first two newlines, strip the trailing ones."""
    try:
        head, _, rest = data.decode("utf-8").partition("\n")
    except UnicodeDecodeError:
        return None
    suites_json, _, rest = rest.partition("\n")
    cases_json = rest.rstrip("\n")
    for line in (suites_json, cases_json):
        if not (line.startswith("[") and line.endswith("]")):
            return None
    return head, suites_json, cases_json


_HEAD, _SUITES, _CASES = PREVIOUS_VERSION_FILE.encode("utf-8").split(b"\n")[:3]


@pytest.mark.parametrize(
    "data",
    [
        PREVIOUS_VERSION_FILE.encode("utf-8"),  # not ASCII: "hé", "✓"
        PREVIOUS_VERSION_FILE.encode("utf-8")
        .replace("é".encode(), b"e")
        .replace("✓".encode(), b"v"),  # ASCII
        b"\n".join([_HEAD, _SUITES, _CASES]),  # no final newline
        b"\n".join([_HEAD, _SUITES, _CASES]) + b"\n\n\n",  # several
        b"\n".join([_HEAD, _SUITES, _CASES, b"[]"]) + b"\n",  # a fourth line stays in the cases
        b"\n".join([_HEAD, _SUITES]) + b"\n",  # no cases line
        b"\n".join([_HEAD, _SUITES]),
        _HEAD,
        b"\n".join([_HEAD, b"[", _CASES]),  # a line that is only "["
        b"\n".join([_HEAD, _SUITES, b"]"]),
        b"\n".join([_HEAD, b"", _CASES]),
        b"\n".join([_HEAD, _SUITES, b"[\xff]"]),  # not UTF-8 in the last line
        b"\n".join([_HEAD, b"[\xc3]", _CASES]),  # a cut UTF-8 sequence in the suites
        b"\n".join([_HEAD, _SUITES, _CASES + b"\r"]),  # CRLF is not stripped
        b"",
        b"\n\n\n",
    ],
)
def test_the_stored_lines_are_cut_from_the_bytes_as_from_the_decoded_text(data: bytes) -> None:
    expected = _lines_as_first_read(data)
    stored = parse_stored(data)
    if expected is None or stored is None:
        assert stored is None and (expected is None or expected[0] != _HEAD.decode())
        return
    assert (stored.head_json, stored.suites_json, stored.cases_json) == expected


HUGE = "1" + "0" * 400  # an integer JSON allows and no float holds


@pytest.mark.parametrize(
    "field", ['"duration_s":0.125', '"time_ms":0.75', '"start_ms":1.5', '"end_ms":2.25']
)
def test_a_number_too_large_for_a_float_makes_the_result_unreadable(
    tmp_path: Path, field: str
) -> None:
    """Read in doit's up-to-date check, whose OverflowError stopped the whole run."""
    key = field.split(":")[0]
    path = tmp_path / "math.result.jsonl"
    path.write_text(PREVIOUS_VERSION_FILE.replace(field, f"{key}:{HUGE}"), encoding="utf-8")
    assert read_result(path) is None
    if field.startswith(('"duration_s"', '"time_ms"')):  # the head's
        assert read_result_head(path) is None


READERS = {
    "read_result": read_result,
    "read_result_head": read_result_head,
    "read_result_bytes": read_result_bytes,
    "read_result_file": read_result_file,
    "read_stored": read_stored,
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("name", ["a.result.jsonl", "a.result.json"])
def test_a_result_linked_to_a_fifo_is_missing_and_never_waited_on(
    tmp_path: Path, reader: str, name: str
) -> None:
    """Under either name: a plain read of a FIFO (or of /proc/self/fd/1, stdout piped in CI)
    waited for ever, in the planning, the up-to-date check or the summary."""
    fifo = fifo_symlink(tmp_path / name)
    assert without_waiting(lambda: READERS[reader](tmp_path / "a.result.jsonl"), fifo) is None


@pytest.mark.parametrize("reader", READERS)
def test_a_result_linked_to_a_file_elsewhere_is_not_read(tmp_path: Path, reader: str) -> None:
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text(PREVIOUS_VERSION_FILE, encoding="utf-8")
    assert READERS[reader](elsewhere) is not None
    link = tmp_path / "project" / "a.result.jsonl"
    link.parent.mkdir()
    link.symlink_to(elsewhere)
    assert READERS[reader](link) is None
