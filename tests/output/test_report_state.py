"""The summary's memory of what its reports were made from."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.output.report_state import (
    ReportState,
    file_digest,
    known_digest,
    load_state,
    modification_times,
    outputs_untouched,
    reports_digest,
    save_state,
)
from tests.fifo_guard import fifo_symlink, without_waiting


def test_the_digest_follows_options_and_every_result() -> None:
    results = [file_digest(b"a"), file_digest(b"b")]
    digest = reports_digest({"plan": 1}, results)
    assert digest == reports_digest({"plan": 1}, list(results))
    assert digest != reports_digest({"plan": 2}, results)
    assert digest != reports_digest({"plan": 1}, [results[0], file_digest(b"c")])
    assert digest != reports_digest({"plan": 1}, list(reversed(results)))


def test_state_round_trips_and_a_foreign_file_is_none(tmp_path: Path) -> None:
    path = tmp_path / "report-state.json"
    state = ReportState("d1", {"report.json": 5})
    save_state(path, state)
    assert load_state(path) == state
    path.write_text('{"format": 99}')
    assert load_state(path) is None
    path.write_text("not json")
    assert load_state(path) is None
    assert load_state(tmp_path / "absent.json") is None


def test_a_state_of_the_previous_version_loads_and_one_of_the_wrong_shape_is_none(
    tmp_path: Path,
) -> None:
    path = tmp_path / "report-state.json"
    # as the version before the records codec wrote it
    previous = '{"format":1,"digest":"d1","outputs":{"report.json":5,"junit.xml":7}}\n'
    path.write_text(previous, encoding="utf-8")
    state = load_state(path)
    assert state == ReportState("d1", {"report.json": 5, "junit.xml": 7})
    save_state(path, state)
    # this version also keeps the results' digests (none known yet), in the same format
    assert path.read_text(encoding="utf-8") == previous.replace("}}\n", '},"results":{}}\n')
    assert load_state(path) == state
    path.write_text('{"format":1,"digest":"d1","outputs":{"report.json":"5"}}')
    assert load_state(path) is None
    path.write_text("[1]")
    assert load_state(path) is None


def test_outputs_untouched_notices_an_edited_or_deleted_report(tmp_path: Path) -> None:
    (tmp_path / "report.json").write_text("{}")
    (tmp_path / "junit.xml").write_text("<x/>")
    times = modification_times(tmp_path, ["report.json", "junit.xml"])
    assert outputs_untouched(tmp_path, times)
    (tmp_path / "junit.xml").unlink()
    assert not outputs_untouched(tmp_path, times)
    assert not outputs_untouched(tmp_path, {}), "no record of outputs is no proof"


def test_a_known_digest_is_taken_only_for_the_same_signature() -> None:
    known = {"r.json": ("sig-1", "kept")}
    assert known_digest(known, "r.json", "sig-1", b"bytes") == "kept"
    assert known_digest(known, "r.json", "sig-2", b"bytes") == file_digest(b"bytes")
    assert known_digest(known, "other.json", "sig-1", b"bytes") == file_digest(b"bytes")


def test_a_state_linked_to_a_fifo_is_none_and_never_waited_on(tmp_path: Path) -> None:
    path = tmp_path / "report-state.json"
    fifo = fifo_symlink(path)
    assert without_waiting(lambda: load_state(path), fifo) is None


def test_a_state_linked_to_a_file_elsewhere_is_not_read(tmp_path: Path) -> None:
    """Only our own file: a committed one pointing elsewhere would decide what is rewritten."""
    elsewhere = tmp_path / "elsewhere.json"
    save_state(elsewhere, ReportState("d1", {"report.json": 5}))
    assert load_state(elsewhere) is not None
    link = tmp_path / "project" / "report-state.json"
    link.parent.mkdir()
    link.symlink_to(elsewhere)
    assert load_state(link) is None
