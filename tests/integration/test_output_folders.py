"""Our outputs stay out of the user's folders: a project that builds into ``./build`` gets its
reports, HTML page, caches and lock under ``.as-test/``, never at its root beside the user's own
``html/``, ``cache/`` and ``reports/``; ``doit clean`` removes ours there and nothing of theirs.

Real asc, real as-test (both toolchains), real wasmtime, real doit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.conftest import Project

CONFIG = {
    "input": ["assembly/__tests__/**/*.spec.ts"],
    "outDir": "./build",
    "modes": {"wasi": {"buildOptions": {"target": "wasi"}}},
}
# What the user had at the project's root before we came, some of it named as our files are.
USERS_FILES = {
    "html/index.html": b"<h1>my own site</h1>\n",
    "html/style.css": b"h1 { color: red }\n",
    "cache/project.lock": b"my own lock\n",
    "cache/data.bin": bytes(range(256)),
    "reports/report.tap": b"TAP version 13\n1..0 # mine\n",
    "reports/q3.txt": b"quarterly numbers\n",
    "junit.xml": b"<testsuites name='mine'/>\n",
}
# What 0.1.0 left at the root of such a project: ours, but left alone (it could be the user's).
FORMER_OURS = {
    "report.json": b'{"format": "an old report"}\n',
    "report-state.json": b'{"format": "an old state"}\n',
}
# as-test's own output root, which both versions read: ours goes there too (not at the root);
# the fixture's snapshots stay where they are.
WITH_OUTPUT_ROOT = {**CONFIG, "output": "./results", "snapshotDir": "./.as-test/snapshots"}
# The root may gain only the build output, our folder, and doit's own state (the dodo's choice).
MAY_APPEAR = {"build", ".as-test", "results", ".doit.db", "__pycache__"}


def _files_under(root: Path) -> dict[str, bytes]:
    """Every file at the root and below, but in the folders the root may gain, by content."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in root.rglob("*")
        if path.is_file()
        and path.relative_to(root).parts[0] not in MAY_APPEAR
        and "node_modules" not in path.relative_to(root).parts
    }


def _project_building_into_build(
    fresh_project: Callable[[str], Project], config: dict[str, object]
) -> Project:
    project = fresh_project("passing")
    (project.root / "as-test.config.json").write_text(json.dumps(config), "utf-8")
    for name, content in {**USERS_FILES, **FORMER_OURS}.items():
        path = project.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return project


@pytest.mark.parametrize(
    ("config", "folder"), [(CONFIG, ".as-test"), (WITH_OUTPUT_ROOT, "results")], ids=["", "output"]
)
def test_outputs_go_under_our_folder_and_the_users_root_is_untouched(
    fresh_project: Callable[[str], Project], config: dict[str, object], folder: str
) -> None:
    project = _project_building_into_build(fresh_project, config)
    before = _files_under(project.root)
    ours = project.root / folder

    first = project.doit()
    assert first.exit_code == 0, first.stdout + first.stderr
    assert _files_under(project.root) == before, "nothing of ours at the root, theirs unchanged"
    for name in ("report.json", "junit.xml", "report-state.json", "html/index.html"):
        assert (ours / name).is_file(), name
    assert (ours / "cache" / "project.lock").is_file()
    assert any((project.root / "build" / "wasi").glob("*.spec.wasm")), "the build output"
    moved = [line for line in first.stdout.splitlines() if line.startswith("note: astest-tasks")]
    assert moved == [
        f"note: astest-tasks now writes its reports and caches under {folder}/, no longer "
        "beside outDir in ./; what an earlier version left there (report-state.json) is left "
        "as it is: delete it, and those reports there that are not your own, once you no "
        "longer need them"
    ]

    again = project.doit()
    assert again.exit_code == 0, again.stdout + again.stderr
    assert _files_under(project.root) == before
    assert "note: astest-tasks" not in again.stdout, "said once"

    cleaned = project.doit("clean")
    assert cleaned.exit_code == 0, cleaned.stdout + cleaned.stderr
    assert _files_under(project.root) == before, "clean removes nothing of the user's"
    assert not (ours / "report.json").exists() and not (ours / "html" / "index.html").exists()

    for astest in ([], ["clean"]):  # the astest command's run, and its clean
        done = _astest(project, *astest)
        assert done.returncode == 0, done.stdout + done.stderr
        assert _files_under(project.root) == before, astest
    assert not (ours / "report.json").exists(), "astest clean removed ours"


def _astest(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "astest_tasks", *args],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
