"""What a report format is: a name, the file it writes beside report.json, and how it writes it.

Every format is written from the same ``ReportInput`` (the shown results, each spec's stored
result text and test cases, the coverage, the shard), so a format needs nothing from the summary
but this. ``TextFormat`` covers a format whose file is one text: it renders, then writes
atomically, so a reader never sees half a report.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.output.report_input import ReportInput


class ReportFormat(Protocol):
    """One output format of the summary and of ``astest merge``."""

    @property
    def name(self) -> str: ...

    @property
    def file_name(self) -> str:
        """Where the file goes, relative to report.json's folder (``/``-separated)."""
        ...

    def write(self, folder: Path, reports: ReportInput) -> Path:
        """Write the file, atomically, under ``folder``; the path written."""
        ...


@frozen
class TextFormat:
    """A format whose file is one text, rendered whole and then written atomically."""

    name: str
    file_name: str
    render: Callable[[ReportInput], str]

    def write(self, folder: Path, reports: ReportInput) -> Path:
        path = folder / self.file_name
        write_text_atomic(path, self.render(reports))
        return path
