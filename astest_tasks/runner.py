"""The API of runner scripts (``.as-test/runners/*.py``), after as-test's ``as-test/lib``.

A runner declares the host functions its specs import and hands them to ``instantiate``::

    from astest_tasks.runner import instantiate

    def now_ms() -> float:
        return 1_700_000_000_000.0

    instantiate({"env": {"now_ms": now_ms}}).start()

``instantiate`` supplies the rest: the WIPC plumbing, WASI or the bindings ``env`` imports, the
memory and time limits. Host functions receive and return plain wasm numbers; one marked
``@with_memory`` also receives the spec's memory first, to read AssemblyScript strings and buffers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from astest_tasks.run.runner_script import ACTIVE_RUN
from astest_tasks.run.wasm_host import (
    WITH_MEMORY_ATTRIBUTE,
    GuestMemory,
    GuestStartError,
    PreparedGuest,
    WasiGrants,
    prepare_guest,
)

__all__ = ["GuestMemory", "Instance", "RunnerUsageError", "instantiate", "with_memory"]

F = TypeVar("F", bound=Callable[..., Any])


class RunnerUsageError(RuntimeError):
    """The runner script used this API in a way that cannot work; the message says how to fix it."""


class Instance:
    """An instantiated spec. ``start()`` runs it; ``call()`` reaches its other exports first."""

    def __init__(self, guest: PreparedGuest) -> None:
        self._guest = guest

    @property
    def exports(self) -> list[str]:
        return self._guest.export_names()

    def call(self, name: str, *args: Any) -> Any:
        return self._guest.call(name, *args)

    def start(self) -> int:
        """Run the spec's tests; returns the exit code (0 when the runtime ended cleanly)."""
        return self._guest.start().exit_code


def instantiate(
    imports: Mapping[str, Mapping[str, object]] | None = None,
    *,
    dirs: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
) -> Instance:
    """Instantiate the spec being run. A wasi spec sees no host directory and only the mode's
    ``runOptions.env``; ``dirs`` grants directories read-only (guest path to host path, relative
    to the project root) and ``env`` grants more variables. Files read through a granted
    directory are not inputs of the run: a change to them does not re-run the spec."""
    context = ACTIVE_RUN.get()
    if context is None:
        raise RunnerUsageError(
            "instantiate() runs a spec for an astest-tasks run task; run the specs with `doit` "
            "rather than executing the runner script directly"
        )
    if context.guest is not None:
        raise RunnerUsageError("instantiate() may be called only once per spec")
    grants = _grants(context.project_root, context.target, dirs, env)
    try:
        guest = prepare_guest(
            context.wasm_path,
            context.target,
            context.channel,
            context.limits,
            context.wasi_env,
            imports or {},
            grants,
            compiler=context.compiler,
        )
    except GuestStartError as exc:
        context.start_failure = str(exc)
        raise
    context.guest = guest
    return Instance(guest)


def with_memory(function: F) -> F:
    """Mark a host function that takes the spec's ``GuestMemory`` as its first argument."""
    setattr(function, WITH_MEMORY_ATTRIBUTE, True)
    return function


def _grants(
    project_root: Path,
    target: str,
    dirs: Mapping[str, str] | None,
    env: Mapping[str, str] | None,
) -> WasiGrants | None:
    if not dirs and not env:
        return None
    if target != "wasi":
        raise RunnerUsageError(
            "instantiate(dirs=..., env=...) grants WASI access, and this spec's target is "
            f"{target}; fix: remove them from the runner, or run the mode on the wasi target"
        )
    granted_dirs: dict[str, Path] = {}
    for guest_path, host_path in (dirs or {}).items():
        folder = (project_root / host_path).resolve()
        if not folder.is_dir():
            raise RunnerUsageError(
                f"instantiate(dirs=...) grants {host_path!r} as {guest_path!r}, but "
                f"{folder} is not a directory; fix: correct the path (relative to the project "
                "root)"
            )
        granted_dirs[guest_path] = folder
    return WasiGrants(dirs=granted_dirs, env={str(k): str(v) for k, v in (env or {}).items()})
