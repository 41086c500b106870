"""Compile one spec with asc and the as-test transform, exactly as as-test's CLI does.

One asc call per spec: asc links every entry file of a call into one module, so batching specs
would make them share globals and a single ``run()``. The result is a ``BuildRecord``, written as
the build task's target: a failed compile is data (shown in the summary with the compiler's
message and the command to reproduce it), not a doit failure that would stop the other specs.

asc runs in this process's persistent compile server (``compile_pool``) and gives the same bytes
as a spawned ``node asc.js``; custom build commands, and builds no server can serve, spawn. The
record's command is always the spawned line, so a failure can be reproduced by hand.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.compile_route import CompileRoute, ServedCompile
from astest_tasks.build.compile_server import CompileOutput, time_limit_message
from astest_tasks.build.module_check import module_problem
from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.asc_flags import default_flags
from astest_tasks.config.toolchain import Toolchain, check_node_version, load_toolchain
from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.disk_space import disk_full, is_full, out_of_space_is_disk_full
from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.process_env import base_environ
from astest_tasks.core.records import REJECT, decode, encode
from astest_tasks.core.state_files import read_state_file

BUILD_RECORD_FORMAT = 1
COMPILE_TIME_LIMIT_S = 600.0


@frozen
class BuildRecord:
    """What a compile produced; deterministic, so an identical rebuild changes nothing."""

    status: str  # "ok" or "failed"
    spec: str
    mode: str
    target: str
    wasm: str
    wasm_sha256: str
    command: str  # a shell line that reproduces the compile from the project root
    exit_code: int
    diagnostics: str
    format: int = BUILD_RECORD_FORMAT

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> str:
        return json.dumps(encode(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> BuildRecord:
        """Raises ValueError (RecordError naming the field) when ``text`` is not one."""
        data = parse_json(text)
        if not isinstance(data, dict) or data.get("format") != BUILD_RECORD_FORMAT:
            raise ValueError("not a build record of this version")
        # Every field is written every time: a key we do not know means another writer.
        return decode(cls, data, unknown=REJECT)


def asc_arguments(request: BuildRequest, toolchain: Toolchain, out_file: str) -> list[str]:
    """asc's argv after ``node asc.js``, in the installed as-test's order (asc_flags.py)."""
    if request.build_cmd:
        return _custom_command(request, out_file)
    root = Path(request.project_root)
    shim = None
    if toolchain.wasi_shim is not None:
        shim = _dot_relative(root, toolchain.wasi_shim.root / "asconfig.json")
    before, after = default_flags(
        AsTestRules.parse(toolchain.as_test.version),
        request.spec.target,
        request.asconfig,
        request.build_args,
        request.features,
        shim,
        root,
    )
    return [request.spec.path, *before, *request.build_args, *after, "-o", out_file]


def command_line(request: BuildRequest, toolchain: Toolchain) -> list[str]:
    """The full argv, as a user would type it from the project root."""
    if request.build_cmd:
        return _custom_command(request, request.wasm_path)
    asc = _dot_relative(Path(request.project_root), toolchain.asc_js).removeprefix("./")
    return ["node", asc, *asc_arguments(request, toolchain, request.wasm_path)]


def repro_command(request: BuildRequest, toolchain: Toolchain) -> str:
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(request.build_env.items()))
    argv = " ".join(shlex.quote(a) for a in command_line(request, toolchain))
    return f"{env} {argv}" if env else argv


def compile_spec(request: BuildRequest, toolchain: Toolchain, route: CompileRoute) -> BuildRecord:
    """Run asc for one spec, move its outputs into place atomically, and return the record;
    ``route`` says where else the compile may come from (compile_route.py).

    Only a module that passes ``module_problem`` is recorded ``ok``, whichever route made it.
    Raises ``DiskFull`` when the disk the outputs go to is full after the compile: what asc
    wrote there cannot be trusted, and the artifacts of the last good build are left as they
    were (the task fails, so it runs again)."""
    root = Path(request.project_root)
    final_wasm = root / request.wasm_path
    # asc writes its outputs itself; compile into a scratch folder beside the artifact and rename,
    # so an interrupted compile never leaves a half-written .wasm that looks current.
    with out_of_space_is_disk_full(final_wasm.parent, f"compiling {request.spec.path}"):
        final_wasm.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=".asc-", dir=final_wasm.parent))
    try:
        scratch_wasm = scratch / final_wasm.name
        output = route.take_prefetched(request, scratch)
        if output is None:
            output = _run_compiler(request, toolchain, scratch_wasm, route)
        route.compiled(request)  # the next build may compile while this module is checked
        if is_full(scratch):  # asc exits 0 after a write that found no space
            raise disk_full(final_wasm.parent, f"compiling {request.spec.path}")
        wasm_bytes, problem = _verified_module(request, output, scratch_wasm)
        if wasm_bytes is not None:
            for produced in sorted(scratch.iterdir()):
                os.replace(produced, final_wasm.parent / produced.name)
            return _record(
                request, toolchain, "ok", output.exit_code, output.diagnostics, wasm_bytes
            )
        # Never let a stale artifact from an earlier good build be run as if it were current.
        # A module missing is a missing target to doit: a failed build runs again next time,
        # also one whose compiler claimed success (unchanged inputs and all).
        final_wasm.unlink(missing_ok=True)
        diagnostics = f"{output.diagnostics}\n{problem}" if problem else output.diagnostics
        return _record(request, toolchain, "failed", output.exit_code, diagnostics, None)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _verified_module(
    request: BuildRequest, output: CompileOutput, wasm: Path
) -> tuple[bytes | None, str]:
    """The module's bytes when the compile succeeded and left a whole one; else None and, for a
    compile that claimed success, why its output cannot be used."""
    if output.exit_code != 0:
        return None, ""
    try:
        data = wasm.read_bytes()
    except OSError:
        return None, f"the compiler exited 0 but wrote no {request.wasm_path}"
    problem = module_problem(data)
    if problem is not None:
        return None, f"the compiler exited 0 but its {request.wasm_path} cannot be used: {problem}"
    return data, ""


def write_build_record(request: BuildRequest, record: BuildRecord) -> None:
    write_text_atomic(Path(request.project_root) / request.record_path, record.to_json())


def read_build_record(project_root: Path, record_path: str) -> BuildRecord | None:
    """The stored record; None when it is missing, not ours to read (core/state_files.py) or
    not a record of this version: the spec builds again."""
    data = read_state_file(project_root / record_path)
    if data is None:
        return None
    try:
        return BuildRecord.from_json(data.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError and RecordError are ValueErrors
        return None


def _record(
    request: BuildRequest,
    toolchain: Toolchain,
    status: str,
    exit_code: int,
    diagnostics: str,
    wasm_bytes: bytes | None,
) -> BuildRecord:
    return BuildRecord(
        status=status,
        spec=request.spec.path,
        mode=request.spec.mode,
        target=request.spec.target,
        wasm=request.wasm_path,
        wasm_sha256=hashlib.sha256(wasm_bytes).hexdigest() if wasm_bytes is not None else "",
        command=repro_command(request, toolchain),
        exit_code=exit_code,
        diagnostics=diagnostics.strip(),
    )


def _run_compiler(
    request: BuildRequest, toolchain: Toolchain, out_file: Path, route: CompileRoute
) -> CompileOutput:
    """asc in the route's persistent compile server when it can; otherwise spawned."""
    root = Path(request.project_root)
    env = {**base_environ(), **request.build_env}  # not a running runner's mode env
    if not request.build_cmd:
        argv = asc_arguments(request, toolchain, str(out_file))
        what = ServedCompile(toolchain.node, toolchain.assemblyscript.root, argv, env)
        served = route.compile_in_server(what, root, COMPILE_TIME_LIMIT_S)
        if served is not None:
            return served
    return spawn_compiler(_spawn_argv(request, toolchain, out_file), root, env)


def served_compile(build: BuildRequest, out_file: Path) -> ServedCompile | None:
    """What a compile server needs for this build, as the build itself would send it; None for
    a custom build command, which is always spawned."""
    if build.build_cmd:
        return None
    toolchain = load_toolchain(Path(build.project_root), need_wasi_shim=build.needs_wasi_shim)
    check_node_version(toolchain.node)  # as the build would, before a server is started
    env = {**base_environ(), **build.build_env}
    argv = asc_arguments(build, toolchain, str(out_file))
    return ServedCompile(toolchain.node, toolchain.assemblyscript.root, argv, env)


def spawn_compiler(argv: list[str], cwd: Path, env: dict[str, str]) -> CompileOutput:
    """One compiler process for one compile: custom build commands, and the fallback."""
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            capture_output=True,
            timeout=COMPILE_TIME_LIMIT_S,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return CompileOutput(-1, b"", time_limit_message(COMPILE_TIME_LIMIT_S).encode())
    except OSError as exc:
        return CompileOutput(-1, b"", f"could not start the compiler: {exc}".encode())
    return CompileOutput(proc.returncode, proc.stdout, proc.stderr)


def _spawn_argv(request: BuildRequest, toolchain: Toolchain, out_file: Path) -> list[str]:
    out = str(out_file)
    if request.build_cmd:
        return _custom_command(request, out)
    # asc's launcher re-executes Node with --enable-source-maps unless it already has it: give it
    # at once and save a second Node start-up per spec.
    return [
        toolchain.node,
        "--enable-source-maps",
        str(toolchain.asc_js),
        *asc_arguments(request, toolchain, out),
    ]


def _custom_command(request: BuildRequest, out_file: str) -> list[str]:
    """``buildOptions.cmd`` with as-test's placeholders; no default flags are added
    (docs/design/host-contract.md §3.3)."""
    name = posixpath.basename(request.spec.path).removesuffix(".ts").removesuffix(".spec")
    expanded = (
        request.build_cmd.replace("<file>", request.spec.path)
        .replace("<name>", name)
        .replace("<outFile>", out_file)
        .replace("<target>", request.spec.target)
        .replace("<mode>", "" if request.spec.mode == "default" else request.spec.mode)
    )
    try:
        tokens = shlex.split(expanded)
    except ValueError as exc:  # an unterminated quote
        raise UserError(
            f"buildOptions.cmd of mode {request.spec.mode!r} cannot be split into arguments "
            f"({exc}): {request.build_cmd!r}; fix: close its quotes"
        ) from None
    return [*tokens, *request.build_args]


def _dot_relative(root: Path, path: Path) -> str:
    relative = os.path.relpath(path, root).replace(os.sep, "/")
    return relative if relative.startswith("../") else f"./{relative}"
