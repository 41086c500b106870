"""A name or a log line of any length makes a small report: a real spec (real asc, as-test and
wasmtime) names its test with 50,000 characters and logs ten lines of 20,000, as the issue's probe
did with 4 MB and 1 MB (a 14 MB HTML page; as-test's guest takes minutes to send those). The page,
JUnit, TAP and CTRF show the first characters of each and say how many more there were; report.json
keeps them whole."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from astest_tasks.output.text_caps import MAX_LINE, MAX_NAME
from tests.integration.conftest import copy_project
from tests.integration.toolchains import Toolchain
from tests.output.html.test_page import Page

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("report-sizes")]

NAME_LENGTH = 50_000
LINE_LENGTH = 20_000
REPORTS = (
    ".as-test/html/index.html",
    ".as-test/junit.xml",
    ".as-test/reports/report.tap",
    ".as-test/report.ctrf.json",
)


def test_a_huge_test_name_and_huge_log_lines_make_small_reports(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    project = copy_project("hugenames", tmp_path, toolchain)
    run = project.doit()
    assert run.exit_code == 1, run.stdout + run.stderr
    (entry,) = project.report()["specs"]
    assert entry["verdict"] == "failed"
    whole = (project.root / ".as-test" / "report.json").read_text()
    assert "n" * NAME_LENGTH in whole and "l" * LINE_LENGTH in whole, "report.json keeps all"
    for name in REPORTS:
        size = (project.root / name).stat().st_size
        assert size < 60_000, f"{name}: {size} bytes"
    page = Page((project.root / REPORTS[0]).read_text("utf-8")).all_text
    # The test's path ("sizes > nnn…"), cut within its first MAX_NAME characters.
    cut_name = re.compile(rf"n{{{MAX_NAME - 50},{MAX_NAME}}}… \((\d+) more characters\)")
    assert cut_name.search(page), page[:2000]
    # Each log line (as-test 1.8 shows a string logged in its JSON quotes), cut at MAX_LINE.
    cut_line = re.compile(rf"l{{{MAX_LINE - 10},{MAX_LINE}}}… \((\d+) more characters\)")
    assert len(cut_line.findall(page)) == 10
    for name in REPORTS[1:]:
        assert cut_name.search((project.root / name).read_text("utf-8")), name
