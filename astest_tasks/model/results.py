"""A spec's result in one mode: the run task's target, and everything the summary shows.

Stored as JSON lines (``<spec-id>.result.jsonl``) so cached results can be shown (and later
turned into JUnit or TAP) without re-running anything. The version before named the same
lines ``.result.json``, which a JSON tool rejects; such a file is still read where the new one
is missing, and removed when the result is next written.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import posixpath
from dataclasses import field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.records import decode, encode
from astest_tasks.core.state_files import (
    read_state_file,
    read_state_file_with_status,
    read_state_line,
)
from astest_tasks.coverage.model import ReportCoverage
from astest_tasks.model.guest_report import (
    Counts,
    FailureDetail,
    Suite,
    Verdict,
    runtime_error_suite,
)

if TYPE_CHECKING:  # loaded by what reads a result's test cases (issue 40)
    from astest_tasks.model.test_cases import TestCase

# 3: three lines (head, suites, test cases), compact JSON (1 was one indented document)
RESULT_FORMAT = 3
RESULT_SUFFIX = ".result.jsonl"
_PREVIOUS_SUFFIX = ".result.json"  # the same three lines, under the name of a JSON document


class Status(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


def status_of(verdict: Verdict) -> Status:
    """A file's status from its merged verdict: a file with no passing or failing test skips."""
    return {Verdict.FAIL: Status.FAILED, Verdict.OK: Status.PASSED}.get(verdict, Status.SKIPPED)


class Stage(StrEnum):
    BUILD = "build"
    RUN = "run"


@frozen
class SnapshotCounts:
    matched: int = 0
    missing: int = 0
    mismatched: int = 0
    missing_keys: tuple[str, ...] = ()
    created: int = 0
    updated: int = 0


@frozen
class SpecResult:
    spec: str
    spec_id: str
    mode: str
    target: str
    status: Status
    stage: Stage  # how far the spec got: a build failure never ran
    counts: Counts
    failures: tuple[FailureDetail, ...]
    suites: tuple[Suite, ...]
    duration_s: float
    session: str  # which doit invocation produced it; the summary marks older ones cached
    build_command: str
    error: str = ""  # compiler diagnostics, or why the runtime failed
    warnings: tuple[str, ...] = ()
    # What the run wrote into the project (snapshot files): news for the run that wrote them,
    # so the summary does not repeat it while the result is shown cached.
    written: tuple[str, ...] = ()
    output: str = ""  # the spec's plain stdout
    snapshots: SnapshotCounts = field(default_factory=SnapshotCounts)
    # The report's coverage points, unfiltered: the summary applies the config's rules, so a
    # cached result stays right when they change. None: no report (or a result from before).
    coverage: ReportCoverage | None = None
    # How ``counts`` were made (report.count): as-test 1.4.0+ counts every block as a suite.
    every_block_is_suite: bool = False

    def to_json(self) -> str:
        """The whole result as one compact JSON document (report.json embeds it)."""
        return _splice_suites(self.head_json(), self.suites_json())

    def head_json(self) -> str:
        """Everything but the suites, as compact JSON: what the summary prints from."""
        return _compact_json({"format": RESULT_FORMAT, **encode(self, leave_out=_SUITES)})

    def suites_json(self) -> str:
        from astest_tasks.model.report_rows import suite_to_dict

        return _compact_json([suite_to_dict(s) for s in self.suites])

    @classmethod
    def from_json(cls, text: str) -> SpecResult:
        """A result from ``to_json``'s single document."""
        data = parse_json(text)
        if not isinstance(data, dict):
            raise ValueError("not a result file of this version")
        return cls.from_head(data, data.get("suites"))

    @classmethod
    def from_head(cls, data: dict[str, object], suites: object) -> SpecResult:
        """A result from its head fields and its suites (a list of suite dicts; () for a head
        read without them). Raises ValueError (RecordError naming the field) when unreadable."""
        if data.get("format") != RESULT_FORMAT:
            raise ValueError("not a result file of this version")
        if not isinstance(suites, list | tuple):
            raise ValueError("the result has no suites list")
        # The suites are stored as guest_report writes them (expectations as rows), apart.
        read_suites = _read_suites(suites) if suites else ()
        return decode(cls, data, given={"suites": read_suites})


_SUITES = frozenset({"suites"})


def _read_suites(suites: list[Any] | tuple[Any, ...]) -> tuple[Suite, ...]:
    # The rows' reader loads only for a result read whole: a head alone has none (issue 40).
    from astest_tasks.model.report_rows import suite_from_dict

    return tuple(suite_from_dict(suite) for suite in suites)


def _compact_json(data: object) -> str:
    # No indent: json's C encoder only runs for compact output, and no person reads these files
    # (the summary and report.json are for people); non-ASCII stays readable.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _splice_suites(head_json: str, suites_json: str) -> str:
    """One JSON object from the head's text and the suites' text, without parsing either."""
    return f'{head_json[:-1]},"suites":{suites_json}}}'


@frozen
class SpecIdentity:
    """One (mode, spec) pair: the record every request and result of a pair starts from."""

    path: str  # the spec file, relative to the project root
    spec_id: str
    mode: str
    target: str


def failure_result(
    who: SpecIdentity,
    session: str,
    stage: Stage,
    title: str,
    details: str,
    build_command: str,
    every_block_is_suite: bool = False,
) -> SpecResult:
    """A spec that failed before it could report: not built, build failed, no result, a bug.

    Counted like as-test's runtime-error suite (one failing suite with one failing test), so the
    failure shows in the totals instead of silently shrinking them.
    """
    from astest_tasks.model.counting import count, failures

    suites = (runtime_error_suite(posixpath.basename(who.path), title, details, "", ""),)
    return SpecResult(
        spec=who.path,
        spec_id=who.spec_id,
        mode=who.mode,
        target=who.target,
        status=Status.FAILED,
        stage=stage,
        counts=count(suites, every_block_is_suite),
        failures=tuple(failures(suites)),
        suites=suites,
        duration_s=0.0,
        session=session,
        build_command=build_command,
        error=title,
        every_block_is_suite=every_block_is_suite,
    )


@frozen
class StoredResult:
    """A result file as the summary reads it: the parsed head, the suites still as JSON text.

    ``result`` has no suites (``()``); ``full()`` parses them when something needs them. The
    suites and test-case lines stay in the file's bytes until asked for: a run where nothing
    changed reads many megabytes of them on a big suite and needs none (issue 40).
    """

    result: SpecResult
    head_json: str
    data: bytes  # the whole file, checked to be UTF-8 with both lines framed as lists
    suites_span: tuple[int, int]  # where the suites line is in ``data``
    cases_span: tuple[int, int]

    @property
    def suites_json(self) -> str:
        return self.data[slice(*self.suites_span)].decode("utf-8")

    @property
    def cases_json(self) -> str:
        return self.data[slice(*self.cases_span)].decode("utf-8")

    def full(self) -> SpecResult:
        return SpecResult.from_head(parse_json(self.head_json), parse_json(self.suites_json))

    def whole_json(self) -> str:
        """The single-document form of ``SpecResult.to_json``, spliced from the file's text."""
        return _splice_suites(self.head_json, self.suites_json)

    def test_cases(self) -> list[TestCase]:
        from astest_tasks.model.test_cases import TestCase

        rows = parse_json(self.cases_json)
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise ValueError("the result file's test cases are not a list of rows")
        return [TestCase.from_row(row) for row in rows]


def result_file_text(result: SpecResult) -> str:
    """Three lines: the head, the suites, the test cases. A reader that needs only the head (the
    summary, the run task's up-to-date check) stops after the first line of a file of many
    megabytes; the CI reports need only the test cases, computed here once."""
    from astest_tasks.model.test_cases import test_cases

    cases = json.dumps([case.to_row() for case in test_cases(result.suites)], ensure_ascii=False)
    return f"{result.head_json()}\n{result.suites_json()}\n{cases}\n"


def write_result(path: Path, result: SpecResult) -> None:
    write_text_atomic(path, result_file_text(result))
    previous = previous_result_path(str(path))
    if previous is not None:
        # The result now lives under its new name: the old file was read for the last time.
        with contextlib.suppress(OSError):
            Path(previous).unlink()


def previous_result_path(path: str) -> str | None:
    """Where the version before stored the result that ``path`` (a ``.result.jsonl``) names:
    ``.result.json``. None for a path of another name."""
    if not path.endswith(RESULT_SUFFIX):
        return None
    return path.removesuffix(RESULT_SUFFIX) + _PREVIOUS_SUFFIX


def stored_result_path(path: Path) -> Path:
    """``path``, or the previous version's name for it when only that file exists."""
    previous = previous_result_path(str(path))
    if previous is None or path.exists() or not Path(previous).exists():
        return path
    return Path(previous)


def read_result_bytes(path: Path) -> bytes | None:
    """The result file's bytes, from its previous name when only that exists; None when it is
    missing or not ours to read (core/state_files.py: a symlink, a FIFO, too big)."""
    return read_state_file(stored_result_path(path))


def read_result_file(path: Path) -> tuple[bytes, os.stat_result] | None:
    """``read_result_bytes``, with the status of the very file read (taken before reading, so
    that a write during the read shows as a newer file next time, never as this one)."""
    return read_state_file_with_status(stored_result_path(path))


_READ_ERRORS = (OSError, ValueError, KeyError, TypeError, AttributeError, AssertionError)


def read_result(path: Path) -> SpecResult | None:
    """The stored result, or None when it is missing or unreadable (then the spec must re-run)."""
    stored = read_stored(path)
    if stored is None:
        return None
    try:
        return stored.full()
    except _READ_ERRORS:
        return None


def read_stored(path: Path) -> StoredResult | None:
    """The result's head parsed and its suites as text, or None when missing or unreadable."""
    data = read_result_bytes(path)
    return None if data is None else parse_stored(data)


def parse_stored(data: bytes) -> StoredResult | None:
    """A result file's bytes as a StoredResult, or None when they are not one.

    Found by their newlines, without copying either big line; the whole file must be UTF-8
    (checked without decoding it when it is ASCII, as most result files are)."""
    try:
        head_end = data.index(b"\n")
        suites_end = data.index(b"\n", head_end + 1)
        cases_end = len(data)
        while cases_end > suites_end + 1 and data[cases_end - 1] == _NEWLINE:
            cases_end -= 1  # the trailing newlines, as str.rstrip would (without a copy)
        spans = ((head_end + 1, suites_end), (suites_end + 1, cases_end))
        for start, end in spans:
            if not (end > start and data[start] == _OPEN and data[end - 1] == _CLOSE):
                raise ValueError("the result file has no suites or test cases line")
        if not data.isascii():
            data.decode("utf-8")  # raises UnicodeDecodeError, a ValueError, when it is not
        head = data[:head_end].decode("utf-8")
        return StoredResult(_parse_head(head), head, data, spans[0], spans[1])
    except _READ_ERRORS:
        return None


_OPEN, _CLOSE, _NEWLINE = ord("["), ord("]"), ord("\n")


def read_result_head(path: Path) -> SpecResult | None:
    """The stored result without its suites (read from the file's first line only), or None."""
    line = read_state_line(stored_result_path(path))
    if line is None:
        return None
    try:
        # without its newline: the summary's read of the whole file finds the same text
        return _parse_head(line.removesuffix(b"\n").decode("utf-8"))
    except _READ_ERRORS:
        return None


def _parse_head(text: str) -> SpecResult:
    """The result a head line holds (without its suites), kept by the line's text while the call
    lasts: a call reads each head twice, in its run's up-to-date check and in the summary, and
    decoding one is about 0.25 million instructions (issue 40). The same text always decodes to
    the same result, and a result holds only immutable values (tuples, frozen records), so one
    can be shared. A head that fails to decode raises each time (lru_cache keeps no exception).
    A long head (a spec's big output) is decoded each time rather than kept."""
    if len(text) > _LONGEST_KEPT_HEAD:
        return _decoded_head(text)
    return _kept_head(text)


# What the heads kept in one call may hold: a head is about a kilobyte, unless the spec's output
# or error is long; 4096 short ones are a few megabytes at most.
_LONGEST_KEPT_HEAD = 16384


@functools.lru_cache(maxsize=4096)
def _kept_head(text: str) -> SpecResult:
    return _decoded_head(text)


def forget_kept_heads() -> None:
    """Drop the heads kept so far: a call starts afresh (watch mode makes one per cycle in one
    process, each writing new heads), so no head outlives the call that read it."""
    _kept_head.cache_clear()


def _decoded_head(text: str) -> SpecResult:
    data = parse_json(text)
    if not isinstance(data, dict) or "suites" in data:
        raise ValueError("not a result file of this version")
    return SpecResult.from_head(data, ())
