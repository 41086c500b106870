"""Render the jinja templates shipped in ``templates/`` (runner scripts, ``init`` scaffolding)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.core.version import __version__

if TYPE_CHECKING:
    import jinja2


def templates_dir() -> Path:
    """Installed wheels carry the templates inside the package; a checkout keeps them beside it."""
    package = Path(__file__).resolve().parents[1]  # astest_tasks/
    for candidate in (package / "templates", package.parent / "templates"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"astest-tasks' templates are missing (looked beside {package})")


@cache
def _environment() -> jinja2.Environment:
    import jinja2  # here: a doit call that renders nothing (the usual one) never pays for it

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,  # a missing variable is our bug: fail, never blank
        keep_trailing_newline=True,
        autoescape=False,  # we render Python, JSON and TypeScript, not HTML
    )


def render(name: str, **context: object) -> str:
    return _environment().get_template(name).render(version=__version__, **context)
