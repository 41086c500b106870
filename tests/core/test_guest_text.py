"""Any text a spec sends reaches every output: decoded as the guest meant it, written without a
traceback, parsed back by the format's real parser, and kept exactly where the format can hold it.

A spec's strings are UTF-16, so two Python strings are the same guest text when their UTF-16 code
units are ("\\ud83d" + "\\ude00" is the one character U+1F600 to the guest, and to JSON). The
strategies below draw such canonical strings, with lone surrogates, NUL, control characters,
YAML/XML-hostile and non-BMP characters made likely.
"""

from __future__ import annotations

import io
import json
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path

import junitparser
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tap.parser import Parser as TapParser

from astest_tasks.core import guest_text as guest_text_module
from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.guest_text import (
    as_node_writes,
    decode_guest_utf8,
    decode_guest_utf16,
    encodable,
    encode_wtf8,
    for_stream,
    inert_field,
    one_line_text,
    own_commands_for_stream,
    terminal_text,
    utf8_file_bytes,
    xml_text,
    yaml_double_quoted,
)
from astest_tasks.core.lazy_pattern import LazyPattern
from astest_tasks.coverage.files import coverage_log_json, lcov_document
from astest_tasks.coverage.model import CoveragePoint, CoverageSummary, FileCoverage
from astest_tasks.coverage.points import SourceLines
from astest_tasks.fuzz.crash_records import FuzzCrash, write_fuzz_crash_record
from astest_tasks.fuzz.fuzzer_report import FuzzAssertion, FuzzerOutcome, FuzzFailure
from astest_tasks.fuzz.results import FuzzResult, read_fuzz_result, write_fuzz_result
from astest_tasks.model.crash_records import CrashCommands, write_crash_record
from astest_tasks.model.guest_report import Expectation, Suite, Verdict
from astest_tasks.model.report_parsing import parse_report
from astest_tasks.model.results import (
    SnapshotCounts,
    SpecResult,
    Status,
    read_result,
    write_result,
)
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.model.snapshots import SnapshotStore, SnapshotVerdict
from astest_tasks.model.spec_logs import write_spec_log
from astest_tasks.output.ci_reports import points
from astest_tasks.output.console import Shown, live_line, render_summary
from astest_tasks.output.fuzz_summary import ShownFuzz, render_fuzz
from astest_tasks.output.merge_reports import merge_reports
from astest_tasks.output.summary import write_reports
from astest_tasks.output.terminal import Palette
from tests.conftest import make_spec_result
from tests.output.github_commands import runner_commands

SPEC = "assembly/__tests__/utf16.spec.ts"
AWKWARD = [
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
    "\x00",
    "\x07",
    "\x1b[31m",
    "\r",
    "\n",
    "\r\n",
    "\t",
    "\x7f",
    "\x85",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\ufffe",
    "\uffff",
    "\ufffd",
    "\U0001f600",
    "\U0010ffff",
    "#",
    "\\",
    '"',
    "'",
    "<&>",
    "]]>",
    "::",
    " > ",
    "===",
    "é",
]


def utf16_canonical(text: str) -> str:
    """The Python string of a guest's UTF-16 text: surrogate pairs joined, lone ones kept."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


any_character = st.characters(exclude_categories=())  # surrogates (Cs) included
guest_text = st.lists(st.one_of(any_character, st.sampled_from(AWKWARD)), max_size=12).map(
    lambda parts: utf16_canonical("".join(parts))
)


def _no_line_break(text: str) -> bool:
    return not any(mark in text for mark in "\r\n\u2028\u2029")


# A snapshot key is one non-empty line of the .snap file (as-test's own format holds no more).
one_line_guest_text = guest_text.filter(lambda text: text != "" and _no_line_break(text))
# A test name holding "::" is read as a legacy key suffix by as-test itself ("x::0" is "x",
# "x::1" is "x #2": snapshots.canonicalize_key), so only names without it can round-trip.
snapshot_name_text = one_line_guest_text.filter(lambda text: "::" not in text)


@contextmanager
def scratch_dir() -> Iterator[Path]:
    # hypothesis runs many examples per test: a fresh folder each, not pytest's tmp_path.
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


# -- the decoders and encoders ---------------------------------------------------------------------


def test_wtf8_lone_surrogates_are_kept_and_other_bad_bytes_are_replacement_characters() -> None:
    assert decode_guest_utf8(b"a\xed\xa0\x80b\xed\xbf\xbf") == "a\ud800b\udfff"
    assert decode_guest_utf8(b"\xff\xed\xa0") == "\ufffd\ufffd\ufffd"
    assert decode_guest_utf8("é😀".encode()) == "é😀"


@given(guest_text)
def test_what_a_guest_encodes_decodes_to_the_same_text(text: str) -> None:
    # AssemblyScript's String.UTF8.encode is WTF-8: what surrogatepass writes.
    assert utf16_canonical(decode_guest_utf8(text.encode("utf-8", "surrogatepass"))) == text
    assert decode_guest_utf16(text.encode("utf-16-le", "surrogatepass")) == text
    assert utf16_canonical(decode_guest_utf8(encode_wtf8(text))) == text


def test_an_odd_utf16_byte_is_a_replacement_character() -> None:
    assert decode_guest_utf16(b"a\x00\x00\xd8!") == "a\ud800\ufffd"


@given(guest_text)
def test_report_payloads_keep_lone_surrogates_from_json_escapes_and_raw_wtf8(text: str) -> None:
    escaped = json.dumps({"suites": [{"description": text}]}).encode()
    raw = json.dumps({"suites": [{"description": text}]}, ensure_ascii=False)
    (from_escapes,) = parse_report(escaped)
    (from_wtf8,) = parse_report(raw.encode("utf-8", "surrogatepass"))
    assert from_escapes.description == text
    assert utf16_canonical(from_wtf8.description) == text


@pytest.mark.parametrize("encoding", ["ascii", "latin-1", "utf-8", "cp1252"])
@settings(deadline=None)  # a loaded machine must not fail it on time
@given(text=guest_text)
def test_encodable_text_always_encodes(encoding: str, text: str) -> None:
    buffer = io.BytesIO()
    stream = io.TextIOWrapper(buffer, encoding=encoding, errors="strict")
    shown = encodable(text, stream)
    stream.write(shown)
    stream.flush()
    assert buffer.getvalue().decode(encoding) == shown
    # What the encoding holds is written as it is; only the rest becomes an escape.
    assert shown == text.encode(encoding, errors="backslashreplace").decode(encoding)


def test_encodable_escapes_only_what_the_encoding_cannot_hold() -> None:
    ascii_stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    utf8_stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    assert encodable("a\ud800é😀", ascii_stream) == "a\\ud800\\xe9\\U0001f600"
    assert encodable("a\ud800é😀", utf8_stream) == "a\\ud800é😀"
    assert encodable("plain", io.StringIO()) == "plain"


class DoitWriter:
    """doit's action ``Writer``: no encoding of its own, the real stream as ``orig_stream``."""

    def __init__(self, original: io.TextIOWrapper) -> None:
        self.orig_stream = original


def test_encodable_sees_through_doits_capturing_writer() -> None:
    original = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    assert encodable("\ufffd", DoitWriter(original)) == "\\ufffd"  # type: ignore[arg-type]


def test_sink_escapes_spell_the_character() -> None:
    assert utf8_file_bytes("a\ud800é") == b"a\\ud800\xc3\xa9"
    assert xml_text("a\x00\ud800\ufffe\t😀") == "a\\x00\\ud800\\ufffe\t😀"
    assert one_line_text("x\udc00y") == "x\\udc00y"
    assert as_node_writes("x\udc00y") == "x\ufffdy"
    assert yaml_double_quoted('a"\\\n\x85\u2028\ud800') == '"a\\"\\\\\\n\\x85\\u2028\\ud800"'


def test_xml_text_escapes_the_controls_xml_discourages_and_a_terminal_acts_on() -> None:
    """DEL and C1 are XML 1.0 characters, but "discouraged" (section 2.2), and 0x9b is CSI."""
    assert xml_text("a\x7fb\x85c\x9b2J\xa0~") == "a\\x7fb\\x85c\\x9b2J\xa0~"


# -- every writer, through its real parser ---------------------------------------------------------


def spec_result(texts: list[str], status: Status = Status.FAILED) -> SpecResult:
    """A result whose every guest-supplied string is one of ``texts``."""
    name, log, left, right, message, output = (texts * 6)[:6]
    failing = Expectation(1, Verdict.FAIL, "toBe", message, "3:5", left, right, "")
    passing = Expectation(2, Verdict.OK, "toBe", "", "4:5", right, right, "")
    case = Suite(name, "test", 1, Verdict.FAIL, 0.0, 1.0, (), (failing, passing), (log,))
    top = Suite(f"{name} suite", "describe", 0, Verdict.FAIL, 0.0, 2.0, (case,), (), ())
    suites = (top,)
    return make_spec_result(
        "utf16",
        status,
        spec=SPEC,
        suites=suites,
        session="s1",
        build_command="asc utf16.spec.ts",
        error=message,
        warnings=(log,),
        output=output,
        snapshots=SnapshotCounts(missing=1, missing_keys=(f"utf16.spec.ts::{name}",)),
    )


text_sets = st.lists(guest_text, min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(text_sets)
def test_result_files_round_trip_every_text(texts: list[str]) -> None:
    result = spec_result(texts)
    with scratch_dir() as folder:
        write_result(folder / "r.result.json", result)
        raw = (folder / "r.result.json").read_bytes()
        raw.decode("utf-8")  # strict: the file is valid UTF-8
        assert read_result(folder / "r.result.json") == result


@settings(max_examples=60, deadline=None)
@given(text_sets)
def test_report_json_junit_and_tap_parse_back(texts: list[str]) -> None:
    result = spec_result(texts)
    expected_points = points(result)
    with scratch_dir() as folder:
        write_reports(folder / "report.json", [Shown(result, cached=False)])

        report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        (entry,) = report["specs"]
        assert SpecResult.from_json(json.dumps(entry["result"])) == result

        junit = junitparser.JUnitXml.fromfile(str(folder / "junit.xml"))
        cases = [case for suite in junit for case in suite]
        assert [case.name for case in cases] == [xml_text(p.name) for p in expected_points]
        failure = cases[0].result[0]
        assert failure.message == xml_text(expected_points[0].message)
        assert failure.text == xml_text(f"{SPEC}:3:5\n{expected_points[0].details}")
        assert junit.tests == len(expected_points) and junit.failures == 1

        tap_text = (folder / "reports" / "report.tap").read_text(encoding="utf-8")
        lines = list(TapParser().parse_text(tap_text))
        assert not [line.text for line in lines if line.category == "unknown" and line.text]
        tests = [line for line in lines if line.category == "test"]
        # One test case holding a failing and a passing expectation: one failing point.
        assert [t.ok for t in tests] == [False]
        assert not any(t.skip or t.todo for t in tests)
        assert tests[0].yaml_block is not None
        assert tests[0].yaml_block["message"] == expected_points[0].message
        name = expected_points[0].name
        # tap.py reads neither of TAP's escapes, "\#" and "\\" (tests/output/formats/test_tap.py
        # reads them); a control character shows as its escape, as on the console.
        if "#" not in name and "\\" not in name:
            shown = one_line_text(inert_field(" ".join(f"wasi {SPEC} > {name}".split())))
            assert tests[0].description == f"- {shown}"  # tap.py keeps TAP's "- " separator


@settings(max_examples=40, deadline=None)
@given(text_sets)
def test_merged_shard_reports_and_their_summary(texts: list[str]) -> None:
    result = spec_result(texts)
    with scratch_dir() as folder:
        write_reports(folder / "shard" / "report.json", [Shown(result, cached=False)])
        console = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
        with redirect_stdout(console):
            assert merge_reports([folder / "shard" / "report.json"], folder / "merged") == 1
        console.flush()
        assert (
            console.buffer.getvalue()
            .decode("ascii")
            .endswith("tests: 1 passed, 1 failed, 0 skipped\n")
        )
        merged = json.loads((folder / "merged" / "report.json").read_text(encoding="utf-8"))
        assert SpecResult.from_json(json.dumps(merged["specs"][0]["result"])) == result
        junitparser.JUnitXml.fromfile(str(folder / "merged" / "junit.xml"))


@pytest.mark.parametrize("encoding", ["ascii", "utf-8"])
@settings(max_examples=40, deadline=None)
@given(texts=text_sets)
def test_console_summary_and_live_line_reach_any_stream(encoding: str, texts: list[str]) -> None:
    result = spec_result(texts)
    buffer = io.BytesIO()
    stream = io.TextIOWrapper(buffer, encoding=encoding, errors="strict")
    stream.write(for_stream(live_line(result, 1, 1, Palette(False)) + "\n", stream))
    stream.write(for_stream(render_summary([Shown(result, cached=False)], Palette(True)), stream))
    stream.flush()
    written = buffer.getvalue().decode(encoding)
    assert written.startswith("[1/1]  FAIL  wasi  utf16  1 passed, 1 failed, 0 skipped")
    assert written.endswith("tests: 1 passed, 1 failed, 0 skipped\n")


@settings(max_examples=40, deadline=None)
@given(text_sets)
def test_readable_logs_and_crash_records(texts: list[str]) -> None:
    result = spec_result(texts)
    commands = CrashCommands(cwd="/p", build="asc x", run="doit run", repro="doit run")
    with scratch_dir() as folder:
        log_path = write_spec_log(folder, ".as-test/logs/wasi", result, "doit run")
        log = (folder / log_path).read_bytes().decode("utf-8")  # strict: valid UTF-8
        for line in result.suites[0].suites[0].logs:
            assert utf8_file_bytes(line).decode("utf-8") in log

        crash_log = write_crash_record(folder, ".as-test/crashes", result, commands)
        (folder / crash_log).read_bytes().decode("utf-8")
        record = json.loads((folder / crash_log).with_suffix(".json").read_text(encoding="utf-8"))
        assert record["stdout"] == result.output
        assert record["error"].startswith(result.error)


@settings(max_examples=60, deadline=None)
@given(
    # Names that Node writes alike (two lone surrogates both become U+FFFD) are one entry.
    st.lists(
        st.tuples(snapshot_name_text, guest_text),
        min_size=1,
        max_size=4,
        unique_by=lambda entry: as_node_writes(entry[0]),
    ),
    st.sampled_from([False, True]),
)
def test_snapshots_created_with_any_text_match_on_the_next_run(
    entries: list[tuple[str, str]], serialized: bool
) -> None:
    # as-test sends a snapshot's value as serialised text (a string's lone surrogate escaped);
    # a custom serialiser may send a raw one, which the file holds as Node writes it.
    values = {
        f"utf16.spec.ts::{name}": json.dumps(value) if serialized else value.replace("\r", "")
        for name, value in entries
    }
    with scratch_dir() as folder:
        first = SnapshotStore.load(folder, SPEC, ".as-test/snapshots")
        first.update = SnapshotUpdate.CREATE
        for key, value in values.items():
            assert first.assert_snapshot(key, value).verdict is SnapshotVerdict.CREATED
        assert first.save_if_updated()
        (folder / ".as-test/snapshots/utf16.spec.snap").read_bytes().decode("utf-8")

        second = SnapshotStore.load(folder, SPEC, ".as-test/snapshots")
        verdicts = {second.assert_snapshot(key, value).verdict for key, value in values.items()}
        assert verdicts == {SnapshotVerdict.MATCHED}
        assert second.obsolete_keys() == []


def test_snapshot_file_holds_a_lone_surrogate_key_as_node_writes_it(tmp_path: Path) -> None:
    store = SnapshotStore.load(tmp_path, SPEC, ".as-test/snapshots")
    store.update = SnapshotUpdate.CREATE
    store.assert_snapshot("utf16.spec.ts::lone \ud800 suite > snap", '"v\\ud800"')
    store.save_if_updated()
    text = (tmp_path / ".as-test/snapshots/utf16.spec.snap").read_bytes()
    assert text.endswith(b'=== lone \xef\xbf\xbd suite > snap ===\n"v\\ud800"\n')


@settings(max_examples=40, deadline=None)
@given(st.lists(guest_text, min_size=1, max_size=3))
def test_coverage_files_keep_file_names_and_point_types(names: list[str]) -> None:
    files = tuple(
        FileCoverage(name, (CoveragePoint(f"h{index}", name, 1, 1, name, True),))
        for index, name in enumerate(names)
    )
    summary = CoverageSummary(files)
    with scratch_dir() as folder:
        write_text_atomic(folder / "coverage.log.json", coverage_log_json(summary))
        document = json.loads((folder / "coverage.log.json").read_text(encoding="utf-8"))
        assert [f["file"] for f in document["files"]] == names
        assert [f["points"][0]["type"] for f in document["files"]] == names
        write_text_atomic(folder / "lcov.info", lcov_document(summary, SourceLines(folder)))
        (folder / "lcov.info").read_bytes().decode("utf-8")


def fuzz_result(texts: list[str]) -> FuzzResult:
    name, instr, left, message, output = (texts * 5)[:5]
    outcome = FuzzerOutcome(
        name=name,
        runs=3,
        passed=2,
        failed=1,
        crashed=0,
        skipped=0,
        time_ms=1.5,
        assertion=FuzzAssertion(instr=instr, left=left, right=name, message=message),
        failures=(FuzzFailure(run=2, seed=7, input=json.dumps([left])),),
    )
    return FuzzResult(
        file="assembly/__fuzz__/utf16.fuzz.ts",
        file_id="utf16",
        mode="default",
        passed=False,
        stage="run",
        seed=5,
        seed_is_random=False,
        runs_override="",
        fuzzers=(outcome,),
        duration_s=0.1,
        session="s1",
        build_command="asc utf16.fuzz.ts",
        error=message,
        output=output,
    )


@settings(max_examples=40, deadline=None)
@given(text_sets)
def test_fuzz_results_crash_records_and_summary(texts: list[str]) -> None:
    result = fuzz_result(texts)
    crash = FuzzCrash(
        file=result.file,
        file_id=result.file_id,
        mode=result.mode,
        seed=result.seed,
        error=result.error,
        stdout=result.output,
        stderr=result.output,
        cwd="/p",
        build_command="asc",
        repro_command="doit astest:fuzz",
    )
    with scratch_dir() as folder:
        write_fuzz_result(folder / "utf16.fuzz.result.json", result)
        assert read_fuzz_result(folder / "utf16.fuzz.result.json") == result
        log = write_fuzz_crash_record(folder, ".as-test/crashes", crash, result.fuzzers[0])
        (folder / log).read_bytes().decode("utf-8")
        record = json.loads((folder / log).with_suffix(".json").read_text(encoding="utf-8"))
        assert record["failure"]["left"] == result.fuzzers[0].assertion.left
        assert record["failures"][0]["input"] == [result.fuzzers[0].assertion.left]
    console = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    console.write(
        for_stream(render_fuzz([ShownFuzz(result, cached=False)], Palette(True)), console)
    )
    console.flush()


# What a spec may say to a terminal or a runner (issue 38): OSC 0 sets the window title, OSC 52
# writes the clipboard, OSC 8 makes a hyperlink, ESC[2J clears the screen, 0x9b is CSI alone.
OSC_TITLE = "\x1b]0;owned\x07"
OSC_CLIPBOARD = "\x1b]52;c;b3duZWQ=\x07"
OSC_LINK = "\x1b]8;;https://example.invalid/\x1b\\link\x1b]8;;\x1b\\"
CLEAR_SCREEN = "\x1b[2J"
C1_CSI = "\x9b2J"
COMMAND_PARTS = ["::", "##[", "]", " ", "\t", "\n", "\r", "\r\n", "stop-commands", "error", "x"]
SGR = re.compile(r"\x1b\[[0-9;]*m")
# What a terminal acts on, less the tab and line feed we print ourselves.
TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _controls_left(text: str) -> list[str]:
    return TERMINAL_CONTROL.findall(SGR.sub("", text))


@pytest.mark.parametrize("sequence", [OSC_TITLE, OSC_CLIPBOARD, OSC_LINK, CLEAR_SCREEN, C1_CSI])
@pytest.mark.parametrize("colour", [False, True])
def test_terminal_text_shows_control_sequences_as_escapes(sequence: str, colour: bool) -> None:
    shown = terminal_text(f"a {sequence} b\n", colour, github_actions=False)
    assert _controls_left(shown) == []
    assert "\x1b" not in shown
    assert shown.startswith("a \\x1b" if sequence[0] == "\x1b" else "a \\x9b")
    assert shown.endswith(" b\n"), "the text around stays as it was"


def test_terminal_text_keeps_colours_only_for_a_colour_stream() -> None:
    painted = "\x1b[31mred\x1b[0m\tand\x1b[1;4m bold\x1b[0m\n"
    assert terminal_text(painted, colour=True, github_actions=False) == painted
    assert terminal_text(painted, colour=False, github_actions=False) == "red\tand bold\n"


@pytest.mark.parametrize("opened", ["\x1b[8m", "\x1b[30;40m", "\x1b[5m", "\x1b[0;31m"])
def test_a_colour_a_line_leaves_on_is_closed_at_its_end(opened: str) -> None:
    # A spec's output that hides or paints what follows must not reach the next line we print.
    shown = terminal_text(f"out{opened}\n  FAIL totals", colour=True, github_actions=True)
    assert shown == f"out{opened}\x1b[0m\n  FAIL totals"
    assert terminal_text(shown, colour=True, github_actions=True) == shown, "twice: the same"


def test_terminal_text_shows_a_carriage_return_but_keeps_a_line_ending() -> None:
    shown = terminal_text("one\r\ntwo\rthree\x00", colour=False, github_actions=False)
    assert shown == "one\ntwo\\rthree\\x00"


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("::stop-commands::x", "\\::stop-commands::x"),
        ("   ::error::x", "   \\::error::x"),
        ("\t::warning file=a::x", "\t\\::warning file=a::x"),
        ("see ##[group]x]", "see ##\\[group]x]"),
    ],
)
def test_a_line_that_would_be_a_command_is_broken_under_github_actions(
    line: str, shown: str
) -> None:
    assert runner_commands(line), "the line is a command as it stands"
    assert terminal_text(line, colour=True, github_actions=True) == shown
    assert runner_commands(shown) == []
    assert terminal_text(line, colour=True, github_actions=False) == line, "only under Actions"


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(
        st.one_of(st.sampled_from(COMMAND_PARTS), st.sampled_from(AWKWARD), any_character),
        max_size=16,
    ).map("".join),
    colour=st.booleans(),
)
def test_no_text_prints_as_a_command_or_a_control_sequence(text: str, colour: bool) -> None:
    shown = terminal_text(text, colour, github_actions=True)
    assert runner_commands(shown) == []
    assert _controls_left(shown) == []
    assert terminal_text(shown, colour, github_actions=True) == shown, "twice changes nothing"
    field = inert_field(text)
    assert not any(mark in field for mark in "\r\n\u2028\u2029\x85\x1b")


def test_a_painted_line_is_judged_by_its_text() -> None:
    # The runner would not skip the colour; a terminal's log viewer might: broken all the same.
    shown = terminal_text("\x1b[31m::error::x", colour=True, github_actions=True)
    assert shown == "\x1b[31m\\::error::x\x1b[0m"


def test_a_line_with_no_command_is_left_alone_under_github_actions() -> None:
    for line in ("a::b::c", "time: 12:30::00", "[LOG] ::"):
        assert runner_commands(line) == []
        assert terminal_text(line, colour=False, github_actions=True) == line


def test_inert_field_keeps_a_name_on_one_line() -> None:
    name = "a\nb\r\tc\u2028d\x1b]0;t\x07 \x1b[31mred"
    assert inert_field(name) == "a\\nb\\r\\tc\\u2028d\\x1b]0;t\\x07 \\x1b[31mred"


def test_for_stream_breaks_commands_only_under_github_actions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    text = f"  ::stop-commands::x {OSC_TITLE}\n"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert for_stream(text, io.StringIO()) == "  \\::stop-commands::x \\x1b]0;owned\\x07\n"
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    assert for_stream(text, io.StringIO()) == "  ::stop-commands::x \\x1b]0;owned\\x07\n"


def test_our_own_commands_stay_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    ours = "::error file=a.spec.ts,line=3,title=t %0A##[group]::x%0D\n"
    shown = own_commands_for_stream(ours, io.StringIO())
    assert shown == ours
    assert [(c.form, c.name) for c in runner_commands(shown)] == [("::", "error")]


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)))
def test_an_ascii_field_is_escaped_as_the_pattern_escapes_it(text: str) -> None:
    escapes, escaped_code = guest_text_module._NAMED_ESCAPES, guest_text_module._escaped_code
    by_pattern = guest_text_module._FIELD_CONTROL.compiled.sub(
        lambda match: escapes.get(match.group()) or escaped_code(match.group()), text
    )
    assert inert_field(text) == by_pattern


def test_a_printable_ascii_field_needs_no_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = LazyPattern(guest_text_module._FIELD_CONTROL.source)
    monkeypatch.setattr(guest_text_module, "_FIELD_CONTROL", fresh)
    assert inert_field("assembly/__tests__/math.spec.ts: adds ~ [1] {ok}") == (
        "assembly/__tests__/math.spec.ts: adds ~ [1] {ok}"
    )
    assert fresh._compiled is None
    assert inert_field("a\tb\x7f") == "a\\tb\\x7f"


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)), st.booleans())
def test_ascii_text_is_shown_as_the_pattern_shows_it(text: str, colour: bool) -> None:
    """The pattern's answer, taken by a fresh pattern on the path plain text skips."""
    plain = text.replace("\r\n", "\n")
    by_pattern = guest_text_module._TERMINAL_CONTROL.compiled.sub(
        lambda match: guest_text_module._control_shown(match.group(), colour), plain
    )
    if colour and "\x1b[" in by_pattern:
        by_pattern = "\n".join(guest_text_module._colours_closed(x) for x in by_pattern.split("\n"))
    assert terminal_text(text, colour, github_actions=False) == by_pattern


def test_plain_text_to_print_needs_no_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = LazyPattern(guest_text_module._TERMINAL_CONTROL.source)
    monkeypatch.setattr(guest_text_module, "_TERMINAL_CONTROL", fresh)
    assert terminal_text("files: 3 passed\n\tdone\r\n", True, False) == "files: 3 passed\n\tdone\n"
    assert fresh._compiled is None
    assert terminal_text("a\rb", False, False) == "a\\rb"
