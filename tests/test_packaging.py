"""What a wheel ships: every subpackage of astest_tasks is listed in pyproject.toml, so an
installed astest-tasks is not missing a stage the checkout has."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_for_the_wheel() -> None:
    listed = set(
        tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    on_disk = {
        ".".join(init.parent.relative_to(REPO).parts)
        for init in (REPO / "astest_tasks").rglob("__init__.py")
    }
    assert "astest_tasks.tasks" in on_disk  # the walk found the package
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert listed - on_disk == {"astest_tasks.templates"}  # mapped from templates/ (package-dir)
