"""Where a spec's compile may happen besides a fresh asc process.

The build stage compiles; it does not decide when or where. A build compiled ahead of its task,
and a persistent compile server, belong to the schedule stage (``schedule/scheduler.py``), which
hands its ``Scheduler`` to ``compile_spec`` as this route. ``SPAWN_EACH`` is the route of a
caller with neither: every compile is a fresh asc.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple, Protocol

from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.compile_server import CompileOutput


class ServedCompile(NamedTuple):
    """What a compile server needs for one build, exactly as the build itself would send it."""

    node: str
    asc_root: Path
    argv: list[str]
    env: dict[str, str]


class CompileRoute(Protocol):
    def take_prefetched(self, request: BuildRequest, into: Path) -> CompileOutput | None:
        """This build's outputs, moved into ``into``, if it was compiled ahead; else None."""
        ...

    def compile_in_server(
        self, served: ServedCompile, cwd: Path, limit_s: float
    ) -> CompileOutput | None:
        """asc ``main(served.argv)`` in a persistent server; None means spawn asc instead."""
        ...

    def compiled(self, request: BuildRequest) -> None:
        """This build's compile has ended (its module is not checked yet): the route may start
        the next build's meanwhile."""
        ...


class _SpawnEach:
    def take_prefetched(self, request: BuildRequest, into: Path) -> CompileOutput | None:
        return None

    def compile_in_server(
        self, served: ServedCompile, cwd: Path, limit_s: float
    ) -> CompileOutput | None:
        return None

    def compiled(self, request: BuildRequest) -> None:
        return None


SPAWN_EACH: CompileRoute = _SpawnEach()
