"""A format that is not ours: test_registry.py adds its row to show a new format is written,
kept and cleaned with no other change."""

from __future__ import annotations

from astest_tasks.output.formats.base import TextFormat
from astest_tasks.output.report_input import ReportInput


def spec_count(reports: ReportInput) -> str:
    return f"{len(reports.shown)} specs\n"


FORMAT = TextFormat(name="count", file_name="reports/count.txt", render=spec_count)
