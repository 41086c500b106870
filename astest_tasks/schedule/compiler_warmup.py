"""Warm the compile server while watch mode waits for a save.

A fresh Node process compiles slowly at first and faster as V8 optimises asc's own code: measured
on a small spec, about 500 ms for the first compile, 120-130 ms after ten, 85 ms after fifty. A
watch session's first cycle compiles each spec once, so without help its first edits are
compiled by a half-warm server. While the watcher idles, ``CompilerWarmup`` compiles the
project's own builds again, into a scratch folder that is thrown away, until ``budget``
compiles are spent over the whole session (about 4 s of one core, once).

A save stops it at once: ``stop`` waits only for the compile in flight (the server serves one at
a time), so the save's own compile is never queued behind more than one warm-up compile, and
only in the first seconds of a session. A project whose compiles are heavy (a warm-up compile
over ``HEAVY_COMPILE_S``) is not warmed further: its own few compiles warm the server as much,
and a save must not wait long behind one. The session's first warm-up compile is not judged: on
a project already built, the first cycle compiles nothing, so that compile also starts Node and
is V8's slowest (0.9 s on a small spec, measured), and judging it stopped every warm-up there,
leaving each save's compile at about 0.2 s instead of 0.1 s.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from astest_tasks.schedule.build_prefetch import Compiler, PlannedBuild

WARMUP_BUDGET = 40  # compiles per session; the gain levels off by then (see above)
HEAVY_COMPILE_S = 0.5


class CompilerWarmup:
    def __init__(
        self, budget: int = WARMUP_BUDGET, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.left = budget
        self._clock = clock
        self._judged = False  # whether a compile has been timed yet (see the module's docstring)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, builds: Sequence[PlannedBuild], compiler: Compiler) -> bool:
        """Compile ``builds`` in turn on a thread until the budget is spent or ``stop``."""
        self.stop()
        if self.left <= 0 or not builds:
            return False
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._warm,
            args=(list(builds), compiler, self._stop),
            name="astest-warmup",
            daemon=True,
        )
        self._thread.start()
        return True

    def stop(self, wait: bool = True) -> None:
        """Stop after the compile in flight; with ``wait``, return once it has finished."""
        self._stop.set()
        thread = self._thread
        if thread is not None and wait:
            # RuntimeError, "cannot join thread before it is started": Ctrl-C reached ``start``
            # inside Thread.start (while it waited for the new thread to say it runs, or before
            # it launched it), and this stop is the watch's clean-up. A thread that runs at all
            # then finds its stop set before it makes anything (``_warm``).
            with contextlib.suppress(RuntimeError):
                thread.join()
            self._thread = None

    def _warm(self, builds: list[PlannedBuild], compiler: Compiler, stop: threading.Event) -> None:
        if stop.is_set():
            return  # stopped before it ran: see ``stop``
        scratch = Path(tempfile.mkdtemp(prefix="astest-warmup-"))
        try:
            turn = 0
            while self.left > 0 and not stop.is_set():
                build = builds[turn % len(builds)]
                turn += 1
                self.left -= 1
                started = self._clock()
                try:
                    output = compiler(build.request, scratch / build.wasm().name)
                except Exception:  # only a warm-up: the builds report their own failures
                    return
                heavy = self._clock() - started > HEAVY_COMPILE_S and self._judged
                self._judged = True
                if output is None or heavy:
                    self.left = 0  # no compile server to warm, or compiles too heavy to wait for
                    return
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
