"""A Python runner script run inside this process, once per spec: the context ``instantiate``
finds (``ACTIVE_RUN``), the script's run, and what it reports.

The runner is the user's file (the in-process runtime's, ``inprocess_runtime.py``) or our default
(``default_runtime.py``): it declares extra host imports and calls
``astest_tasks.runner.instantiate(imports)``, which finds the spec to run through the context set
here. No interpreter is started per spec; the script's compiled code is cached by file state, and
each spec gets fresh globals so no state leaks between specs.

While a runner runs, ``os.environ`` carries the mode's run env and the ``AS_TEST_*`` variables of
as-test's runners (docs/design/host-contract.md §5.2). ``os.environ`` is process-wide, so runs
executed by threads (``doit -P thread``) take turns here; ``doit -n N`` uses processes and runs in
parallel.

Apart from the runtimes: they are chosen in every call, this module loads only when a spec runs
(issue 40), and wasmtime (``wasm_host``) once it instantiates one (about 40 ms).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING

from astest_tasks.core.process_env import runner_environment
from astest_tasks.core.project_source import file_signature
from astest_tasks.run.guest_run import GuestRun
from astest_tasks.run.runtime_env import runtime_variables
from astest_tasks.run.wasm_compiler import (
    CompilerChoiceError,
    WasmCompiler,
    compiler_for,
    note_run,
)

if TYPE_CHECKING:
    from astest_tasks.run.channel import ProtocolChannel
    from astest_tasks.run.runtime import RunnableSpec, SpecLimits
    from astest_tasks.run.wasm_host import HostLimits, PreparedGuest


def run_python_runner(
    runner: str, spec: RunnableSpec, channel: ProtocolChannel, limits: SpecLimits
) -> GuestRun:
    """Run one spec with the runner script at ``runner`` (relative to the project root)."""
    from astest_tasks.run.wasm_host import HostLimits

    root = spec.project_root
    wasm = root / spec.wasm_path
    started = time.perf_counter()
    try:
        compiler = spec.compiler or compiler_for(spec.previous_run_s)
    except CompilerChoiceError as exc:
        channel.finish()
        return GuestRun.not_started(str(exc), started)
    # The runner's working directory is doit's, not always the project root: give it a path
    # that opens from anywhere.
    variables = runtime_variables(spec.target, str(wasm), root)
    context = RunnerContext(
        runner_path=runner,
        wasm_path=wasm,
        target=spec.target,
        channel=channel,
        limits=HostLimits.of(limits),
        wasi_env=spec.run_env,
        environ={**spec.run_env, **variables},
        project_root=root,
        compiler=compiler,
    )
    run = run_runner_script(root / runner, context)
    if run.start_failure is None:
        note_run(run.elapsed_s)
    return run


@dataclass
class RunnerContext:
    """What ``instantiate`` needs to know about the spec being run, and what happened to it."""

    runner_path: str  # as shown to the user
    wasm_path: Path
    target: str
    channel: ProtocolChannel
    limits: HostLimits
    wasi_env: Mapping[str, str]
    environ: Mapping[str, str]
    project_root: Path = field(default_factory=Path.cwd)  # where granted dirs are resolved
    compiler: WasmCompiler | None = None  # wasm_compiler.py's choice; None: a spec never run
    guest: PreparedGuest | None = None
    start_failure: str | None = None
    notes: list[str] = field(default_factory=list)


ACTIVE_RUN: ContextVar[RunnerContext | None] = ContextVar("astest_active_run", default=None)
_CODE_CACHE: dict[Path, tuple[str, CodeType]] = {}  # by the script's file_signature


def run_runner_script(script: Path, context: RunnerContext) -> GuestRun:
    from astest_tasks.run.wasm_host import GuestStartError

    started = time.perf_counter()
    try:
        code = _compiled(script)
    except FileNotFoundError:
        return _start_failure(
            context,
            started,
            f"the runner script {context.runner_path} does not exist; fix: create it, or point "
            "runOptions.runtime.cmd at an existing runner",
        )
    except (OSError, SyntaxError, ValueError) as exc:
        return _start_failure(
            context, started, f"the runner script {context.runner_path} cannot be loaded: {exc}"
        )

    script_error = ""
    token = ACTIVE_RUN.set(context)
    try:
        with runner_environment(context.environ):
            exec(code, {"__name__": "__main__", "__file__": str(script)})
    except GuestStartError:
        pass  # recorded by instantiate(); the runner did not catch it
    except SystemExit as exit_request:
        # sys.exit(instance.start()) is how a Node runner's process.exit(code) reads in Python.
        # It must end this spec only, never doit: a clean code after a started spec is a clean
        # end, anything else is the runner's failure.
        exit_code = exit_request.code
        if not (exit_code in (0, None) and context.guest is not None):
            script_error = f"the runner script called sys.exit({exit_code!r})\n"
    except Exception:
        script_error = traceback.format_exc()
    finally:
        ACTIVE_RUN.reset(token)

    if context.start_failure is not None:
        return _start_failure(context, started, context.start_failure)
    guest = context.guest
    if guest is None:
        problem = (
            f"the runner script {context.runner_path} raised before instantiating the spec"
            if script_error
            else f"the runner script {context.runner_path} never called instantiate(imports)"
        )
        return _start_failure(context, started, problem, script_error)
    if guest.result is None:
        if script_error:
            return _start_failure(
                context,
                started,
                f"the runner script {context.runner_path} raised before starting the spec",
                script_error,
            )
        return guest.start()  # as the Node runners do: an instantiated spec is always run
    run = guest.result
    if script_error:
        # The spec ran, then the runner's own code failed: the run cannot be trusted as clean.
        run.exit_code = run.exit_code or 1
        run.stderr += f"\nthe runner script {context.runner_path} raised:\n{script_error}"
    return run


def _start_failure(
    context: RunnerContext, started: float, problem: str, details: str = ""
) -> GuestRun:
    context.channel.finish()
    return GuestRun.not_started(problem, started, details)


def _compiled(script: Path) -> CodeType:
    key = file_signature(script.stat())
    cached = _CODE_CACHE.get(script)
    if cached is not None and cached[0] == key:
        return cached[1]
    code = compile(script.read_bytes(), str(script), "exec")
    _CODE_CACHE[script] = (key, code)
    return code
