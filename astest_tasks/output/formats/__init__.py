"""The report formats the summary and ``astest merge`` write, by name (as doit's reporters are).

Every registered format is written on every run, beside report.json, in the order listed here;
``doit clean`` removes them all (actions/cleaning.py), and the summary rewrites them only when a
result, an option or this list changed (output/report_state.py). To add a format, write a module
whose ``FORMAT`` is a ``ReportFormat`` (``TextFormat`` for a file that is one text) and add its
row to ``FORMATS``: its name, its module and its file.

Why rows rather than the formats themselves: a call whose reports are up to date needs only the
formats' names and files (``report_file_names``, part of what says whether they are), and
importing the five modules and what they use cost about 2 ms of such a call (issue 40). A
format's module loads when the reports are written (``report_formats``), and must agree with its
row.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from astest_tasks.output.formats.base import ReportFormat
    from astest_tasks.output.report_input import ReportInput

REPORT_FILE: Final = "report.json"
REPORT_FORMAT: Final = 1  # report.json's "format": raised when a reader must tell old from new

# Each format's name, module and file (relative to report.json's folder), in the order written.
# Not Final: a test adds a format of its own here, as a new row would (test_registry.py).
FORMATS: tuple[tuple[str, str, str], ...] = (
    ("json", "astest_tasks.output.formats.report_json", REPORT_FILE),
    ("junit", "astest_tasks.output.formats.junit", "junit.xml"),
    ("tap", "astest_tasks.output.formats.tap", "reports/report.tap"),
    ("ctrf", "astest_tasks.output.formats.ctrf", "report.ctrf.json"),
    ("html", "astest_tasks.output.formats.html_report", "html/index.html"),
)


def report_file_names() -> dict[str, str]:
    """Each format's file, relative to report.json's folder, by format name."""
    _check_distinct(FORMATS)
    return {name: file_name for name, _module, file_name in FORMATS}


def report_formats() -> Mapping[str, ReportFormat]:
    """Every format, by name, in the order written: each row's module's ``FORMAT``."""
    return _load(FORMATS)


def write_report_files(folder: Path, reports: ReportInput) -> list[Path]:
    """Every registered format's file under ``folder`` (report.json's); the paths written."""
    return [report_format.write(folder, reports) for report_format in report_formats().values()]


@functools.cache
def _load(rows: tuple[tuple[str, str, str], ...]) -> Mapping[str, ReportFormat]:
    _check_distinct(rows)
    loaded: dict[str, ReportFormat] = {}
    for name, module, file_name in rows:
        made: ReportFormat = importlib.import_module(module).FORMAT
        if (made.name, made.file_name) != (name, file_name):
            raise ValueError(
                f"{module}.FORMAT is {made.name!r} writing {made.file_name!r}, but its row in "
                f"output/formats/__init__.py says {name!r} writing {file_name!r}"
            )
        loaded[name] = made
    return MappingProxyType(loaded)


def _check_distinct(rows: tuple[tuple[str, str, str], ...]) -> None:
    names = [name for name, _module, _file in rows]
    files = [file_name for _name, _module, file_name in rows]
    if len(set(names)) != len(names) or len(set(files)) != len(files):
        raise ValueError(f"two report formats share a name or a file: {names}, {files}")
