"""The report formats the summary and ``astest merge`` write, by name (as doit's reporters are).

Every registered format is written on every run, beside report.json, in the order listed here;
``doit clean`` removes them all (actions/cleaning.py), and the summary rewrites them only when a
result, an option or this list changed (output/report_state.py). To add a format, write a module
here whose ``FORMAT`` is a ``ReportFormat`` (``TextFormat`` for a file that is one text) and add
it to ``REPORT_FORMATS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from astest_tasks.output.formats import ctrf, html_report, junit, report_json, tap
from astest_tasks.output.formats.base import ReportFormat
from astest_tasks.output.report_input import ReportInput


def _registry(*formats: ReportFormat) -> Mapping[str, ReportFormat]:
    names = [f.name for f in formats]
    files = [f.file_name for f in formats]
    if len(set(names)) != len(names) or len(set(files)) != len(files):
        raise ValueError(f"two report formats share a name or a file: {names}, {files}")
    return MappingProxyType({f.name: f for f in formats})


REPORT_FORMATS: Mapping[str, ReportFormat] = _registry(
    report_json.FORMAT,
    junit.FORMAT,
    tap.FORMAT,
    ctrf.FORMAT,
    html_report.FORMAT,
)


def write_report_files(folder: Path, reports: ReportInput) -> list[Path]:
    """Every registered format's file under ``folder`` (report.json's); the paths written."""
    return [report_format.write(folder, reports) for report_format in REPORT_FORMATS.values()]


def report_file_names() -> dict[str, str]:
    """Each format's file, relative to report.json's folder, by format name."""
    return {name: report_format.file_name for name, report_format in REPORT_FORMATS.items()}
