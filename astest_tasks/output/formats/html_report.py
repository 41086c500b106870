"""The HTML report, ``html/index.html`` beside report.json: what a person opens after a run (or
from a CI artifact). Rendered by output/html/ from the same stored results as every format."""

from __future__ import annotations

from astest_tasks.output.formats.base import TextFormat
from astest_tasks.output.report_input import ReportInput

HTML_FILE = "html/index.html"


def _render(reports: ReportInput) -> str:
    # Loaded when a page is written: a run whose reports stand (the no-change run) needs none
    # of the page's modules, nor jinja2.
    from astest_tasks.output.html.page import render_page

    return render_page(reports)


FORMAT = TextFormat(name="html", file_name=HTML_FILE, render=_render)
