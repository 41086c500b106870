"""What ``astest doctor`` checks of the toolchain: Node.js and its version, the npm packages a
project compiles with, whether as-test is a version we test, and the as-test and assemblyscript
combinations known to work (and the as-test 1.0.x + assemblyscript >= 0.28.17 trap).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from astest_tasks.config.as_test_version import AsTestVersion, untested_version_warning
from astest_tasks.config.project_config import ModeSettings
from astest_tasks.config.toolchain import (
    AS_TEST,
    ASSEMBLYSCRIPT,
    MIN_NODE_MAJOR,
    PINNED_VERSIONS,
    WASI_SHIM,
    Package,
    find_package,
    version_combination_warning,
)
from astest_tasks.core.setup_checks import Check, Level

# assemblyscript releases each as-test generation is known to work with (docs/design/index.md).
_ASC_FOR_1_0 = ((0, 28, 9), (0, 28, 14))
_ASC_FIRST_FOR_1_8 = (0, 28, 17)
_NODE_FOR_1_8 = 20  # as-test 1.8's package.json: "engines": {"node": ">=20"}


def node_checks(version: AsTestVersion | None) -> list[Check]:
    node = shutil.which("node")
    if node is None:
        return [
            Check(
                Level.ERROR,
                "node",
                "Node.js was not found on PATH (the AssemblyScript compiler runs on it)",
                f"install Node.js {MIN_NODE_MAJOR} or newer and put `node` on PATH",
            )
        ]
    try:
        output = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return [Check(Level.ERROR, "node", f"{node} --version failed: {exc}", "reinstall Node.js")]
    match = re.match(r"v?(\d+)\.", output)
    major = int(match.group(1)) if match else None
    if major is not None and major < MIN_NODE_MAJOR:
        return [
            Check(
                Level.ERROR,
                "node",
                f"Node.js {output} at {node} is too old for the AssemblyScript compiler",
                f"install Node.js {MIN_NODE_MAJOR} or newer and put it first on PATH",
            )
        ]
    if major is not None and major < _NODE_FOR_1_8 and version and version.at_least("1.8.0"):
        return [
            Check(
                Level.WARN,
                "node",
                f"Node.js {output}: as-test {version} asks for Node.js {_NODE_FOR_1_8} or newer",
                f"install Node.js {_NODE_FOR_1_8} or newer",
            )
        ]
    return [Check(Level.OK, "node", f"Node.js {output} ({node})")]


def package_checks(
    project_root: Path,
    as_test: Package | None,
    version: AsTestVersion | None,
    modes: Sequence[ModeSettings],
) -> list[Check]:
    checks = [_package_check(project_root, AS_TEST, as_test)]
    if as_test and version:
        warning = untested_version_warning(version)
        checks.append(
            Check(Level.WARN, "npm", warning)
            if warning
            else Check(
                Level.OK, "npm", f"as-test {version} is a version astest-tasks is tested with"
            )
        )
    asc = find_package(project_root, ASSEMBLYSCRIPT)
    checks.append(_package_check(project_root, ASSEMBLYSCRIPT, asc))
    if asc and as_test and version:
        checks.append(_compiler_check(version, asc.version, as_test.version))
    if any(mode.target == "wasi" for mode in modes):
        checks.append(
            _package_check(project_root, WASI_SHIM, find_package(project_root, WASI_SHIM))
        )
    return checks


def _package_check(project_root: Path, name: str, package: Package | None) -> Check:
    if package is None:
        pinned = PINNED_VERSIONS.get(name)
        spec = f"{name}@{pinned}" if pinned else name
        return Check(
            Level.ERROR,
            "npm",
            f"{name} is not installed (no node_modules/{name} in {project_root} or above)",
            f"run `npm install --save-dev {spec}` in the project (or `npm ci` when package.json "
            "already lists it)",
        )
    return Check(Level.OK, "npm", f"{name} {package.version} ({package.root})")


def _compiler_check(version: AsTestVersion, asc_version: str, as_test_text: str) -> Check:
    asc = AsTestVersion.parse(asc_version).parts
    trap = version_combination_warning(as_test_text, asc_version)
    if trap:
        detail, _, fix = trap.partition("; fix: ")
        return Check(Level.WARN, "npm", detail, fix)
    if version.at_least("1.1.0") and asc < _ASC_FIRST_FOR_1_8:
        return Check(
            Level.ERROR,
            "npm",
            f"as-test {version} needs assemblyscript 0.28.17 or newer; {asc_version} is installed",
            "run `npm install --save-dev assemblyscript@0.28.20`",
        )
    tested = not version.at_least("1.1.0") and _ASC_FOR_1_0[0] <= asc <= _ASC_FOR_1_0[1]
    tested = tested or (version.at_least("1.1.0") and asc >= _ASC_FIRST_FOR_1_8)
    if not tested:
        return Check(
            Level.WARN,
            "npm",
            f"assemblyscript {asc_version} with as-test {version} is a combination astest-tasks "
            "has not been tested with",
            "use assemblyscript 0.28.14 with as-test 1.0.x, or 0.28.20 with as-test 1.8",
        )
    return Check(Level.OK, "npm", f"assemblyscript {asc_version} works with as-test {version}")
