"""The report formats' registry: every format writes a file its readers accept, a format added
to the registry is written, kept and cleaned with no other change, and two formats cannot
collide."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import junitparser
import pytest
from tap.parser import Parser as TapParser

from astest_tasks.actions.cleaning import summary_leftovers
from astest_tasks.config.shards import ShardPart
from astest_tasks.model.results import write_result
from astest_tasks.output import formats
from astest_tasks.output.ci_reports import points
from astest_tasks.output.console import Shown
from astest_tasks.output.formats import report_file_names, report_formats, write_report_files
from astest_tasks.output.report_input import ReportInput
from astest_tasks.output.summary import load_specs, write_report
from tests.output.formats.test_ctrf import validated_ctrf
from tests.output.test_ci_reports import BROKEN, MATH, PASSING
from tests.output.test_summary import REPORT, plan, table_result

SHOWN = [Shown(MATH, cached=False), Shown(BROKEN, cached=True), Shown(PASSING, cached=False)]


def reports_of(shown: list[Shown]) -> ReportInput:
    return ReportInput(
        shown=shown,
        whole_results=[item.result.to_json() for item in shown],
        spec_points=[points(item.result) for item in shown],
        shard=ShardPart(1, 2, 5),
    )


def read_json(path: Path) -> int:
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == 1
    assert document["shard"] == {"index": 1, "count": 2, "pairs": 5, "split": "hash"}
    return len(document["specs"])


def read_junit(path: Path) -> int:
    return len(list(junitparser.JUnitXml.fromfile(str(path))))


def read_ctrf(path: Path) -> int:
    tests = validated_ctrf(path)["results"]["tests"]
    return len({tuple(test["suite"]) for test in tests})  # (mode, spec)


def read_tap(path: Path) -> int:
    lines = list(TapParser().parse_text(path.read_text(encoding="utf-8")))
    unknown = [line.text for line in lines if line.category == "unknown" and line.text.strip()]
    assert unknown == []
    (plan_line,) = [line for line in lines if line.category == "plan"]
    tests = [line for line in lines if line.category == "test"]
    assert plan_line.expected_tests == len(tests)
    return len({test.description.split(" > ")[0] for test in tests})  # "<mode> <spec>"


class _MatrixRows(HTMLParser):
    """Counts the spec rows of the HTML report's matrix (``<th scope="row" class="spec">``)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "th" and ("class", "spec") in attrs:
            self.rows += 1


def read_html(path: Path) -> int:
    parser = _MatrixRows()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser.rows


# How each format's own readers check it, and how many specs they find. A new format adds its
# reader here: the test below fails for a registered format without one.
READERS: dict[str, Callable[[Path], int]] = {
    "json": read_json,
    "junit": read_junit,
    "tap": read_tap,
    "ctrf": read_ctrf,
    "html": read_html,
}


def test_every_registered_format_has_a_reader_here() -> None:
    assert sorted(READERS) == sorted(report_formats()) == sorted(report_file_names())


@pytest.mark.parametrize("name", sorted(READERS))
def test_each_format_writes_its_file_atomically_and_its_reader_accepts_it(
    tmp_path: Path, name: str
) -> None:
    report_format = report_formats()[name]
    path = report_format.write(tmp_path, reports_of(SHOWN))
    assert path == tmp_path / report_format.file_name
    assert READERS[name](path) == len(SHOWN)
    first = path.stat().st_ino
    report_format.write(tmp_path, reports_of(SHOWN))
    assert path.stat().st_ino != first, "rewritten by a rename, never in place"


def test_write_report_files_writes_every_format_in_registry_order(tmp_path: Path) -> None:
    written = write_report_files(tmp_path, reports_of(SHOWN))
    assert written == [tmp_path / name for name in report_file_names().values()]
    assert report_file_names() == {
        "json": "report.json",
        "junit": "junit.xml",
        "tap": "reports/report.tap",
        "ctrf": "report.ctrf.json",
        "html": "html/index.html",
    }


COUNT_ROW = ("count", "tests.output.formats.count_format", "reports/count.txt")


def test_a_format_added_to_the_registry_is_written_kept_and_cleaned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_result(tmp_path / "r.json", table_result(10))
    summary_plan = plan(tmp_path)
    write_report(summary_plan, load_specs(summary_plan, "s1"))
    counted = tmp_path / ".as-test" / COUNT_ROW[2]
    assert not counted.exists()

    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, COUNT_ROW))
    # No result changed, but the reports on disk lack the new format's file: it is written.
    write_report(summary_plan, load_specs(summary_plan, "s2"))
    assert counted.read_text() == "1 specs\n"
    before = counted.stat().st_ino
    write_report(summary_plan, load_specs(summary_plan, "s3"))
    assert counted.stat().st_ino == before, "nothing changed: nothing is written"
    assert ".as-test/reports/count.txt" in summary_leftovers(REPORT, [])


@pytest.mark.parametrize(
    "clash",
    [("count", "tests.output.formats.count_format", "other.txt"), ("other", "x", COUNT_ROW[2])],
    ids=["name", "file"],
)
def test_two_formats_cannot_share_a_name_or_a_file(
    monkeypatch: pytest.MonkeyPatch, clash: tuple[str, str, str]
) -> None:
    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, COUNT_ROW, clash))
    with pytest.raises(ValueError, match="share a name or a file"):
        report_file_names()
    with pytest.raises(ValueError, match="share a name or a file"):
        report_formats()


def test_a_row_that_disagrees_with_its_module_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = ("count", "tests.output.formats.count_format", "reports/number.txt")
    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, wrong))
    with pytest.raises(ValueError, match=r"count_format\.FORMAT is 'count' writing"):
        report_formats()


def test_the_names_and_files_load_no_format_module() -> None:
    """What says whether the reports are up to date reads the rows alone (issue 40)."""
    probe = (
        "import sys; from astest_tasks.output.formats import report_file_names; "
        "report_file_names(); "
        "print(sorted(m for m in sys.modules if m.startswith('astest_tasks.output')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['astest_tasks.output', 'astest_tasks.output.formats']"


def test_every_format_module_is_registered() -> None:
    """A module written in output/formats/ but left out of FORMATS would never be
    written, kept or cleaned: the one place ARCHITECTURE.md names besides the module."""
    package = Path(formats.__file__).parent
    modules = sorted(p.stem for p in package.glob("*.py") if p.stem not in {"__init__", "base"})
    declared = {
        name: importlib.import_module(f"{formats.__name__}.{name}").FORMAT for name in modules
    }
    registered = set(report_formats().values())
    missing = sorted(name for name, fmt in declared.items() if fmt not in registered)
    assert modules, "the scan found no format module"
    assert not missing, f"add a row for each of these modules to FORMATS: {missing}"
