"""Render the HTML report's page from its data (view.py) with the templates of templates/html/.

The environment autoescapes everything: spec names, messages, expected and received values, log
lines and source text all come from the project, and a test named ``<script>`` must show as
text. The page needs nothing beside it (its style is inline, its charts inline SVG, no script),
so it opens from a CI artifact or a file:// URL with no network.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from astest_tasks.core.guest_text import xml_text
from astest_tasks.core.version import __version__
from astest_tasks.output.html.view import page_of
from astest_tasks.output.report_input import ReportInput
from astest_tasks.output.terminal import strip_colour
from astest_tasks.run.templating import templates_dir

if TYPE_CHECKING:
    import jinja2

PAGE_TEMPLATE = "html/index.html.j2"


@cache
def _environment() -> jinja2.Environment:
    import jinja2  # here: importing the summary must not pay for jinja when nothing renders

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,  # a missing value is our bug: fail, never blank
        autoescape=True,  # every value is text from the project, shown as text
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_shown_text,
    )


def _shown_text(value: object) -> object:
    """Every value as the page shows it: spec output and compiler messages may carry terminal
    colours (shown as the text they colour), and a control character or lone surrogate from a
    guest is no HTML text (shown as its escape, ``\\x07``, as in JUnit)."""
    return xml_text(strip_colour(value)) if isinstance(value, str) else value


def render_page(reports: ReportInput) -> str:
    page = page_of(reports)
    return _environment().get_template(PAGE_TEMPLATE).render(page=page, version=__version__)
