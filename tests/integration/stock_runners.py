"""The Node runner scripts each as-test version's own `ast init` writes, made once per session.

Tests that run specs through as-test's stock runners (as external runtimes, or through
`npx ast test`) copy them from here rather than each running `ast init` again.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from pathlib import Path

from tests.integration.toolchains import Toolchain


@functools.cache
def stock_runners(toolchain: Toolchain) -> Path:
    """The folder holding ``default.wasi.js`` and ``default.bindings.js`` as that toolchain's
    ``ast init`` writes them."""
    scratch = Path(tempfile.mkdtemp(prefix=f"ast-init-{toolchain.id}-"))
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
