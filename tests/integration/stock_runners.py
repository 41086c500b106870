"""The Node runner scripts each as-test version's own `ast init` writes, made once per session.

Tests that run specs through as-test's stock runners (as external runtimes, or through
`npx ast test`) copy them from here rather than each running `ast init` again. The parallel
workers of one test run (pytest-xdist) share one copy per toolchain: the first to ask makes it
under a file lock, the others wait for it and then read it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from filelock import FileLock

from tests.integration.toolchains import Toolchain

MADE = "made"  # written last: a folder without it was left half-made by an interrupted worker


def stock_runners(toolchain: Toolchain, shared_temp: Path) -> Path:
    """The folder holding ``default.wasi.js`` and ``default.bindings.js`` as that toolchain's
    ``ast init`` writes them, made in ``shared_temp``: the test run's temporary folder that
    every worker shares (the ``stock_runner_scripts`` fixture passes it), which pytest removes
    with the run's other temporary folders."""
    shared = shared_temp / f"ast-init-{toolchain.id}"
    with FileLock(f"{shared}.lock"):
        if not (shared / MADE).is_file():
            shutil.rmtree(shared, ignore_errors=True)
            shared.mkdir()
            _ast_init(shared, toolchain)
            (shared / MADE).write_text("")
    return shared / ".as-test" / "runners"


def _ast_init(scratch: Path, toolchain: Toolchain) -> Path:
    (scratch / "node_modules").symlink_to(toolchain.node_modules)
    (scratch / "package.json").write_text('{"type": "module"}')
    for target in ("wasi", "bindings"):
        proc = subprocess.run(
            [
                "npx",
                "--no-install",
                "ast",
                "init",
                "--yes",
                "--target",
                target,
                "--example",
                "none",
            ],
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    runners = scratch / ".as-test" / "runners"
    assert (runners / "default.wasi.js").is_file() and (runners / "default.bindings.js").is_file()
    return runners
