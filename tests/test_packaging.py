"""What a wheel ships and which version it says: every subpackage and data folder of astest_tasks
is listed in pyproject.toml, the version is CHANGELOG.md's, and ``python -m build`` makes the
sdist and the wheel without a warning (setuptools announces the end of deprecated forms through
warnings first: docs/development.md#releasing)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from astest_tasks.core.version import __version__

REPO = Path(__file__).resolve().parents[1]

# The folders that hold data files, not modules; pyproject.toml lists them as packages so that
# setuptools ships them on purpose (it warns about, and will drop, folders it finds unlisted).
DATA_FOLDERS = {
    "astest_tasks.templates",  # mapped from templates/ (package-dir)
    "astest_tasks.templates.html",
    "astest_tasks.templates.init",
    "astest_tasks.templates.runners",
    "astest_tasks.run.web_assets",
}

# "## [0.1.0] - 2026-12-05": a released version's heading in CHANGELOG.md.
_RELEASE_HEADING = re.compile(r"^## \[(\d+)\.(\d+)\.(\d+)\] - \d{4}-\d{2}-\d{2}$", re.MULTILINE)
_UNRELEASED = re.compile(r"^## \[Unreleased\]\n(.*?)(?=^## \[)", re.MULTILINE | re.DOTALL)


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
    assert listed - on_disk == DATA_FOLDERS


def _newest_release(changelog: str) -> tuple[int, int, int]:
    found = _RELEASE_HEADING.search(changelog)
    assert found, "CHANGELOG.md has no '## [X.Y.Z] - YYYY-MM-DD' heading"
    major, minor, patch = (int(part) for part in found.groups())
    return major, minor, patch


def _next_versions(release: tuple[int, int, int]) -> set[str]:
    major, minor, patch = release
    return {f"{major + 1}.0.0", f"{major}.{minor + 1}.0", f"{major}.{minor}.{patch + 1}"}


def test_the_version_is_changelogs_newest_release_or_its_next_development_version() -> None:
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    release = _newest_release(changelog)
    unreleased = _UNRELEASED.search(changelog)
    pending = bool(unreleased and unreleased.group(1).strip())
    if pending:
        base, _, dev = __version__.partition(".dev")
        assert dev.isdigit() and base in _next_versions(release), (
            f"CHANGELOG.md has [Unreleased] entries after {'.'.join(map(str, release))}: "
            f"astest_tasks/core/version.py should say one of {sorted(_next_versions(release))} "
            f"with .devN, not {__version__}"
        )
    else:
        assert __version__ == ".".join(map(str, release)), (
            "astest_tasks/core/version.py should say CHANGELOG.md's newest release"
        )


def _copy_of_the_sources(destination: Path) -> Path:
    # A build writes build/ and *.egg-info beside pyproject.toml: build a copy of what git
    # tracks (as a fresh clone has it), so the checkout and parallel tests are left alone.
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, (entry.decode() for entry in tracked)):
        source = REPO / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination


def test_python_m_build_makes_sdist_and_wheel_without_a_warning(tmp_path: Path) -> None:
    sources = _copy_of_the_sources(tmp_path / "src")
    # PYTHONDONTWRITEBYTECODE makes setuptools say "byte-compiling is disabled": the shell's
    # choice, not the package's.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(tmp_path / "dist"), str(sources)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    warnings = [line for line in output.splitlines() if re.search(r"(?i)warning\b", line)]
    assert not warnings, "the build warned:\n" + "\n".join(warnings)
    wheel = tmp_path / "dist" / f"astest_tasks-{__version__}-py3-none-any.whl"
    assert wheel.is_file(), sorted(path.name for path in (tmp_path / "dist").iterdir())
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for shipped in (
        "astest_tasks/templates/runners/default.wasi.py.j2",
        "astest_tasks/templates/html/index.html.j2",
        "astest_tasks/templates/init/dodo.py.j2",
        "astest_tasks/run/web_assets/page.html",
        "astest_tasks/build/asc_server.mjs",
        "astest_tasks/py.typed",
    ):
        assert shipped in names, f"the wheel lacks {shipped}"
