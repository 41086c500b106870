"""What makes a build or a run stale: the inputs that go into each task's up-to-date check.

doit tracks ``file_dep`` contents itself; everything else that can change a result must be in
these dictionaries, which the tasks hand to doit's ``config_changed``. A missing entry here means
a stale pass, the worst bug this product can have, so err on the side of including things.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from astest_tasks.config import ModeSettings
from astest_tasks.discovery import Spec
from astest_tasks.imports import ImportScan
from astest_tasks.runtime_command import Runtime
from astest_tasks.toolchain import Toolchain, find_package
from astest_tasks.version import __version__

# Bump when the meaning of a build record or result file changes.
KEY_FORMAT = 1
IMPLICIT_ASCONFIG = "asconfig.json"


def build_key(mode: ModeSettings, spec: Spec, toolchain: Toolchain) -> dict[str, Any]:
    return {
        "format": KEY_FORMAT,
        "astest_tasks": __version__,
        "spec": spec.path,
        "mode": mode.name,
        "target": mode.target,
        "asconfig": mode.asconfig,
        "args": list(mode.build_args),
        "cmd": mode.build_cmd,
        "env": dict(mode.build_env),
        "coverage": mode.coverage_enabled,
        "assemblyscript": toolchain.assemblyscript.version,
        "as_test": toolchain.as_test.version,
        "wasi_shim": toolchain.wasi_shim.version if toolchain.wasi_shim else None,
    }


def build_file_deps(
    project_root: Path, mode: ModeSettings, scan: ImportScan, toolchain: Toolchain
) -> list[str]:
    """The spec, its local imports, the asconfig, and the manifests of the packages it uses.

    Package manifests stand for the packages' contents: an upgrade changes the version inside.
    """
    deps = list(scan.local_files)
    # With no --config, asc reads ./asconfig.json by itself when the project has one.
    deps.extend(asconfig_chain(project_root, mode.asconfig or IMPLICIT_ASCONFIG))
    manifests = {toolchain.assemblyscript.manifest, toolchain.as_test.manifest}
    if mode.target == "wasi" and toolchain.wasi_shim is not None:
        manifests.add(toolchain.wasi_shim.manifest)
        manifests.add(toolchain.wasi_shim.root / "asconfig.json")
    for name in scan.packages:
        package = find_package(project_root, name)
        if package is not None:
            manifests.add(package.manifest)
    deps.extend(sorted(str(m) for m in manifests))
    return deps


def asconfig_chain(project_root: Path, asconfig: str) -> list[str]:
    """The asconfig and every file it ``extends``, transitively (asc merges them all)."""
    chain: list[str] = []
    current = Path(asconfig)
    while True:
        path = current if current.is_absolute() else project_root / current
        if not path.is_file() or str(path) in chain:
            return chain
        chain.append(str(path))
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return chain  # asc will report the broken file when it compiles
        parent = data.get("extends") if isinstance(data, dict) else None
        if not isinstance(parent, str):
            return chain
        current = path.parent / parent


def run_key(
    mode: ModeSettings, spec: Spec, limits: tuple[float, float, float], runtime: Runtime
) -> dict[str, Any]:
    """The snapshot files are checked apart, by content (``actions.snapshots_unchanged``)."""
    return {
        "format": KEY_FORMAT,
        "astest_tasks": __version__,
        "spec": spec.path,
        "mode": mode.name,
        "target": mode.target,
        "env": dict(mode.run_env),
        # A lower limit can fail a spec that passed: (timeout s, memory MiB, output MiB).
        "limits": list(limits),
        # The runner file's content is a file_dep; this says which runner, or which command.
        "runtime": runtime.description,
    }
