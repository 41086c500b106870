"""``astest init``: scaffold an as-test project run by doit, as ``npx as-test init`` does.

Every file comes from ``templates/`` and is created only if absent: an existing file is listed as
skipped and left exactly as it was, unless ``--force`` asks to replace the files init manages
(each replaced atomically, as as-test 1.8's ``--force`` "overwrites managed files").
The npm pins come from ``init_pins.py``: the newest as-test the registry has that we test with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from astest_tasks.commands.init_pins import Pins, choose_pins
from astest_tasks.core.atomic import create_text_atomic, write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.plan.options import OPTIONS
from astest_tasks.run.runner_files import default_runner_path, default_runner_source
from astest_tasks.run.templating import render

_FALLBACK_PINS = choose_pins(None, "not asked")
# The npm packages init pins when npm cannot say what the registry has: the pair this
# repository's own package.json installs (a test keeps them in step).
NPM_PACKAGES: tuple[tuple[str, str], ...] = _FALLBACK_PINS.npm_packages
EXAMPLE_SPEC = "assembly/__tests__/example.spec.ts"
EXAMPLES = {"minimal": "init/example.spec.ts.j2", "full": "init/example.full.spec.ts.j2"}
TARGETS = ("wasi", "bindings", "web")
# Files that hold the user's own entries (dependencies, scripts, ignore rules, tasks): --force
# never replaces them, as as-test's init only merges into package.json and .gitignore.
USER_OWNED = frozenset({"package.json", ".gitignore", "dodo.py"})


@dataclass
class ScaffoldReport:
    created: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)  # --force


@frozen
class InitChoices:
    """What ``astest init``'s options ask for (as-test 1.8's ``init`` flags)."""

    target: str = "wasi"
    example: str = "minimal"  # or "full", or "none"
    coverage: bool = False  # --enable coverage
    force: bool = False  # replace the files init manages
    pins: Pins = _FALLBACK_PINS


DEFAULT_CHOICES: Final = InitChoices()


def scaffold_project(directory: Path, choices: InitChoices = DEFAULT_CHOICES) -> ScaffoldReport:
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        "as-test.config.json": render(
            "init/as-test.config.json.j2", target=choices.target, coverage=choices.coverage
        ),
        "dodo.py": render("init/dodo.py.j2", option_lines=option_lines()),
        "package.json": render(
            "init/package.json.j2",
            package_name=npm_package_name(directory.resolve().name),
            npm_packages=choices.pins.npm_packages,
        ),
        ".gitignore": render("init/gitignore.j2"),
    }
    if choices.example in EXAMPLES:
        files[EXAMPLE_SPEC] = render(EXAMPLES[choices.example])
    if choices.target != "web":  # web specs run in the browser: no runner script
        # Only the runner of the config's one mode: a runner of a mode the config does not
        # offer suggests `--mode bindings` works. A mode added later gets its runner then.
        files[default_runner_path(choices.target)] = default_runner_source(choices.target)
    report = ScaffoldReport()
    for relative, text in files.items():
        path = directory / relative
        if choices.force and path.exists() and relative not in USER_OWNED:
            write_text_atomic(path, text)
            report.replaced.append(relative)
        elif create_text_atomic(path, text):
            report.created.append(relative)
        else:
            report.skipped.append(relative)
    return report


def option_lines() -> list[str]:
    """Every option of the astest task creator and its environment variable, from their one
    declaration (plan/options.py), so the generated dodo.py lists them all, always."""
    width = max(len(option.long) for option in OPTIONS) + 2
    return [f"--{option.long}".ljust(width) + f"  {option.env_var}".rstrip() for option in OPTIONS]


def npm_package_name(folder_name: str) -> str:
    """A valid npm package name from a folder name: lower case, URL-safe, no leading dot."""
    name = re.sub(r"[^a-z0-9._-]+", "-", folder_name.lower()).strip("-._")
    return name or "as-test-project"
