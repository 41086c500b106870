"""``astest init``: scaffold an as-test project run by doit, as ``npx as-test init`` does.

Every file comes from ``templates/`` and is created only if absent: an existing file is listed as
skipped and left exactly as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from astest_tasks.core.atomic import create_text_atomic
from astest_tasks.run.runner_files import default_runner_path, default_runner_source
from astest_tasks.run.templating import render
from astest_tasks.tasks.options import OPTIONS

# The npm packages a project needs, at the versions astest-tasks is tested with (the repository's
# own package.json pins the same; a test keeps them in step).
NPM_PACKAGES: tuple[tuple[str, str], ...] = (
    ("@assemblyscript/wasi-shim", "0.1.0"),
    ("as-test", "1.0.7"),
    ("assemblyscript", "0.28.14"),
)
EXAMPLE_SPEC = "assembly/__tests__/example.spec.ts"


@dataclass
class ScaffoldReport:
    created: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def scaffold_project(directory: Path, target: str = "wasi") -> ScaffoldReport:
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        "as-test.config.json": render("init/as-test.config.json.j2", target=target),
        "dodo.py": render("init/dodo.py.j2", option_lines=option_lines()),
        "package.json": render(
            "init/package.json.j2",
            package_name=npm_package_name(directory.resolve().name),
            npm_packages=NPM_PACKAGES,
        ),
        EXAMPLE_SPEC: render("init/example.spec.ts.j2"),
        ".gitignore": render("init/gitignore.j2"),
    }
    # Only the runner of the config's one mode: a runner of a mode the config does not offer
    # suggests `--mode bindings` works. A mode added later gets its runner on its first run.
    files[default_runner_path(target)] = default_runner_source(target)
    report = ScaffoldReport()
    for relative, text in files.items():
        created = create_text_atomic(directory / relative, text)
        (report.created if created else report.skipped).append(relative)
    return report


def option_lines() -> list[str]:
    """Every option of the astest task creator and its environment variable, from their one
    declaration (tasks/options.py), so the generated dodo.py lists them all, always."""
    width = max(len(option.long) for option in OPTIONS) + 2
    return [f"--{option.long}".ljust(width) + f"  {option.env_var}".rstrip() for option in OPTIONS]


def npm_package_name(folder_name: str) -> str:
    """A valid npm package name from a folder name: lower case, URL-safe, no leading dot."""
    name = re.sub(r"[^a-z0-9._-]+", "-", folder_name.lower()).strip("-._")
    return name or "as-test-project"
