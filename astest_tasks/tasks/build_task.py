"""What a compile task tells doit, for a spec (spec_tasks.py) and a fuzz target (fuzz_tasks.py).

Both compile one entry file with asc for a mode: the same action, dependencies, targets and
up-to-date checks. The callers add the name, doc, meta and the pipeline's extra dependencies.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from astest_tasks.actions.doors import build_spec
from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.imports import ImportScanCache, scan_imports
from astest_tasks.build.pending_imports import PendingImports
from astest_tasks.config.discovery import Spec
from astest_tasks.config.layout import doit_paths, spec_identity
from astest_tasks.config.project_config import ModeSettings
from astest_tasks.config.toolchain import Toolchain
from astest_tasks.plan.cache_keys import build_file_deps, build_key
from astest_tasks.remote.remote_use import RemoteUse
from astest_tasks.tasks.checks import InputsChanged, TargetsAreFiles

if TYPE_CHECKING:  # only a call with a remote cache keys its tasks (issue 40)
    from astest_tasks.remote.task_keys import RemoteTask


def build_request(
    root: Path, mode: ModeSettings, source: Spec, wasm_path: str, record_path: str
) -> BuildRequest:
    return BuildRequest(
        project_root=str(root),
        spec=spec_identity(mode, source),
        wasm_path=wasm_path,
        record_path=record_path,
        asconfig=mode.asconfig,
        build_args=tuple(mode.build_args),
        build_cmd=mode.build_cmd,
        build_env=dict(mode.build_env),
        features=mode.features,
    )


def compile_task_fields(
    root: Path,
    request: BuildRequest,
    mode: ModeSettings,
    source: Spec,
    toolchain: Toolchain,
    scan_cache: ImportScanCache,
    remote: RemoteUse | None = None,
) -> tuple[dict[str, Any], RemoteTask | None]:
    """The build task's fields, and its use of the shared cache ``remote`` (which the build
    asks before compiling: remote_actions.py), or None without one."""
    scan = scan_imports(root, source.path, scan_cache)
    outputs = [request.wasm_path]
    if mode.target == "bindings":
        stem = request.wasm_path.removesuffix(".wasm")
        outputs += [f"{stem}.js", f"{stem}.d.ts"]
    targets = [request.record_path, *outputs]
    inputs = build_file_deps(root, mode, scan, toolchain)
    key = build_key(mode, source, toolchain)
    shared = None
    if remote is not None:
        from astest_tasks.remote.task_keys import RemoteKeyInputs, RemoteTask

        shared = RemoteTask(remote, RemoteKeyInputs("build", key, tuple(inputs)), tuple(outputs))
    fields = {
        # Without a remote cache, the action's arguments are the request alone, as before.
        "actions": [(build_spec, [request] if shared is None else [request, shared])],
        "file_dep": doit_paths(root, inputs),
        "targets": doit_paths(root, targets),
        "uptodate": [
            InputsChanged("build", key),
            TargetsAreFiles(str(root), targets),
            PendingImports([doit_paths(root, candidates) for candidates in scan.missing]),
        ],
        "clean": True,
    }
    return fields, shared
