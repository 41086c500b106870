"""The one interface of every runtime: what runs a mode's specs, and what its runs depend on.

A mode's runtime is chosen once, when the tasks are made (``runtime_command.resolve_runtime``):
every runtime of the registry (``runtime_registry.RUNTIMES``) is asked whether it claims the
mode's command, and the one that does is carried whole to each of its run actions. The tasks ask
it which project files decide its results (the run task's ``file_dep``, and the inputs
``--changed`` follows), its part of the run's cache key, how to describe it, and whether it runs
one of our default runners, which a runner task makes from its template first; the run action
asks it to run one built spec over a WIPC channel; ``astest doctor`` asks it what to check.
Nothing afterwards looks at which runtime it is.

An implementation is a frozen dataclass of plain data in a module of its own
(``inprocess_runtime``, ``default_runtime``, ``external_runtime``, ``web_runtime``), so doit can
pickle it to its ``-n`` workers under any start method. It imports what only a run needs
(wasmtime, the browser's harness) inside ``run``: making the tasks of a no-op doit must not pay
for them. Adding a runtime is one such module and its entry in ``RUNTIMES``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Self

from astest_tasks.core.frozen import frozen

if TYPE_CHECKING:  # a run's parts: planning, which makes runtimes, never loads them
    from astest_tasks.core.setup_checks import Check
    from astest_tasks.run.channel import ProtocolChannel
    from astest_tasks.run.guest_run import GuestRun
    from astest_tasks.run.runtime_request import RuntimeRequest
    from astest_tasks.run.wasm_compiler import WasmCompiler


@frozen
class RunnableSpec:
    """One built spec, as a runtime is asked to run it."""

    project_root: Path
    spec_path: str  # relative to the project root, posix separators (as-test's ``<name>``)
    wasm_path: str  # relative to the project root (as-test's ``<file>``)
    target: str  # the mode's target: wasi, bindings or web
    run_env: Mapping[str, str]  # the mode's run env (config env and runOptions.env)
    previous_run_s: float | None = None  # how long its last run took (None: none recorded)
    compiler: WasmCompiler | None = None  # wasmtime's compiler; None: chosen by previous_run_s


@frozen
class SpecLimits:
    """What one spec may take: the wall clock always, memory where the runtime can measure it."""

    timeout_s: float
    memory_bytes: int


class Runtime(Protocol):
    """How a mode's specs run: in-process Python runners, an external command, the browser."""

    @classmethod
    def claim(cls, request: RuntimeRequest) -> Self | None:
        """This runtime for a mode whose command (or lack of one) and target it runs, else None.
        Exactly one runtime of the registry claims each request (runtime_registry.py); one that
        claims but cannot run it raises the ``UserError`` that says why, with the fix."""
        ...

    @property
    def description(self) -> str:
        """What runs the specs, in words: the run task's doc and the ``--list`` plan show it."""
        ...

    @property
    def cache_key(self) -> str:
        """Its part of the run's cache key: which runner or command (not the runner's content,
        which is a file input), so switching runtimes re-runs the specs."""
        ...

    @property
    def default_runner_target(self) -> str | None:
        """The target whose default runner it runs, which a runner task renders from its
        template when missing; None when it runs nothing that astest-tasks makes."""
        ...

    @property
    def runs_in_any_process(self) -> bool:
        """Whether another process of ours runs its specs as well as doit's own: a serial doit
        then runs the next spec in its helper beside the current one (run_ahead.py)."""
        ...

    def doctor_checks(self, project_root: Path, scope: str) -> list[Check]:
        """What ``astest doctor`` reports of this runtime for a mode (``scope``): its runner,
        executable or browser found, with the fix where one is missing. No default: each
        runtime knows what it needs (tests/run/test_runtime_registry.py checks every one)."""
        ...

    def input_files(self, project_root: Path) -> list[str]:
        """The project files whose content decides its results: editing one re-runs its specs."""
        ...

    def run(self, spec: RunnableSpec, channel: ProtocolChannel, limits: SpecLimits) -> GuestRun:
        """Run one spec, relaying its WIPC conversation through ``channel``; a spec that cannot
        start is a ``GuestRun.not_started``, never an exception."""
        ...


class RuntimeDefaults:
    """What most runtimes answer alike: the description is the cache key (which runner or
    command), and no default runner has to be made first. A runtime that differs overrides."""

    @property
    def description(self) -> str:
        raise NotImplementedError

    @property
    def cache_key(self) -> str:
        return self.description

    @property
    def default_runner_target(self) -> str | None:
        return None

    @property
    def runs_in_any_process(self) -> bool:
        return True
