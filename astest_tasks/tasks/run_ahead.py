"""Run the next spec in a helper process while doit runs this one, once specs run long.

A plain ``doit`` runs one task at a time. The build prefetch already compiles the next spec
while one runs; on a suite whose guests take seconds each (a codec suite looping over tables of
tens of thousands of expectations) the runs themselves are the time, and they used one core of
two. So a serial doit runs two specs at once, as ``doit -n 2`` would run their tasks:

- The tasks are made so that each spec's build comes before the previous spec's run
  (``creator.py``): when doit runs spec k, spec k+1 is built.
- Once a run has gone on for ``LONG_RUN_S``, and from then on at the start of each run doit
  does itself (also at once when the spec's last run took that long), the next planned run is
  handed to the helper process (``run_helper.py``), which runs it exactly as a ``doit -n``
  worker would and writes its result.
- When doit reaches the handed-over run, its action waits for the helper and takes what it did,
  if the request, the session and every input file (the module, its build record, the runner
  scripts, the snapshot files) are still as they were when it was handed over; otherwise, or if
  the helper failed, it runs the spec itself. Its live line is printed then, in doit's order.

A run is handed over only when doit is bound to run it and nothing can differ from running it
in doit's own process: doit built its spec in this very invocation, and either it has no result
yet (doit runs a task whose target is missing) or that build changed its build record (a
``file_dep`` of the run); it writes no snapshots (``--update-snapshots`` runs are not handed
over); and its runtime runs anywhere (the browser's warm session lives in doit's process).
Only in a plain serial doit, from its main thread: ``doit -n N`` runs tasks side by side
already. ``ASTEST_RUN_AHEAD=0`` turns it off; ``ASTEST_RUN_AHEAD=always`` hands runs over from
the first one on, without waiting for a long run.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from astest_tasks.build.build_prefetch import Stamps, input_stamps
from astest_tasks.model.results import SpecResult, read_result_head
from astest_tasks.model.snapshots import SnapshotUpdate
from astest_tasks.tasks.run_helper import Answer, RunHelper
from astest_tasks.tasks.run_request import RunRequest

SWITCH_VARIABLE = "ASTEST_RUN_AHEAD"
# A run this long is worth a second process: the helper costs about 0.3 s of CPU to start, and
# a spec handed to it also compiles its module for wasmtime there.
LONG_RUN_S = 0.3

# What a run task's action does but print its live line: the result, and what doit saves.
Outcome = tuple[SpecResult, dict[str, str]]
Execute = Callable[[RunRequest, str], Outcome]


def _key(request: RunRequest) -> tuple[str, str, str]:
    return (request.task_basename, request.mode, request.spec_id)


def _inputs(request: RunRequest) -> list[str]:
    root = Path(request.project_root)
    files = [request.wasm_path, request.build_record_path, *request.snapshot_files]
    files += request.runtime.input_files(root)
    return [str(root / name) for name in files]


@dataclass
class HandedOver:
    """A run the helper has been given, and, once it is done, what it did."""

    request: RunRequest
    session: str
    stamps: Stamps
    answer: Answer | None = None
    done: threading.Event = field(default_factory=threading.Event)

    def receive(self, answer: Answer | None) -> None:
        self.answer = answer
        self.done.set()

    def outcome(self) -> Outcome | None:
        """Wait for the helper; what it did, or None when the run task must run the spec."""
        self.done.wait()
        answer = self.answer
        if answer is None or answer.problem:
            return None
        if input_stamps(list(self.stamps)) != self.stamps:
            return None  # an input changed meanwhile: doit's own run must see it
        # Where doit expects a run's prints: its own streams, captured or not as it decides.
        sys.stdout.write(answer.stdout)
        sys.stderr.write(answer.stderr)
        result, state = answer.value
        return result, state


class RunAhead:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._session = ""
        self._planned: list[RunRequest] = []
        self._place: dict[tuple[str, str, str], int] = {}
        # Build records written in this session (absolute paths), and whether each changed.
        self._built: dict[str, bool] = {}
        self._long_runs = False
        self._handed: HandedOver | None = None
        self._helper: RunHelper | None = None
        self._closed = False

    def plan(self, request: RunRequest, session: str) -> None:
        """Remember a run task, in the order doit will meet it; a new session starts afresh."""
        with self._lock:
            if session != self._session:
                self._session = session
                self._planned, self._place, self._built = [], {}, {}
                self._long_runs = False
            place = self._place.get(_key(request))
            if place is not None:
                self._planned[place] = request
            else:
                self._place[_key(request)] = len(self._planned)
                self._planned.append(request)

    def note_built(self, record: str, *, changed: bool) -> None:
        with self._lock:
            self._built[record] = changed

    def handed_over(self, run: RunRequest, session: str) -> HandedOver | None:
        with self._lock:
            handed = self._handed
            if handed is None or handed.request != run or handed.session != session:
                return None
            self._handed = None
        return handed

    @contextlib.contextmanager
    def running_here(
        self, run: RunRequest, session: str, execute: Execute, *, always: bool
    ) -> Iterator[None]:
        """While doit's process runs ``run``: the next run goes to the helper, now if runs have
        proved long (or ``always``), else once this one has gone on for LONG_RUN_S."""
        if always or self._long_runs or _last_run_was_long(run):
            self._long_runs = True
            self.hand_next(run, session, execute)
            yield
            return
        timer = threading.Timer(LONG_RUN_S, self._long_run, args=(run, session, execute))
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()

    def _long_run(self, run: RunRequest, session: str, execute: Execute) -> None:  # on a timer
        self._long_runs = True
        self.hand_next(run, session, execute)

    def hand_next(self, run: RunRequest, session: str, execute: Execute) -> bool:
        """Have the helper ``execute`` the run planned after ``run``, if it may go (see the
        module's docstring) and the helper is free."""
        with self._lock:
            if self._closed or session != self._session:
                return False
            if self._handed is not None:
                if not self._handed.done.is_set():
                    return False  # the helper is busy
                self._handed = None  # never taken: doit went past it
            place = self._place.get(_key(run))
            if place is None or place + 1 >= len(self._planned):
                return False
            following = self._planned[place + 1]
            if not self._may_hand_over(following):
                return False
            helper = self._helper
            if helper is None or not helper.alive:
                try:
                    helper = self._helper = RunHelper()
                except OSError:  # no process to be had (a limit on processes or files)
                    self._closed = True  # only a head start: doit runs every spec itself
                    return False
            handed = HandedOver(following, session, input_stamps(_inputs(following)))
            self._handed = handed
        if helper.submit(execute, (following, session), handed.receive):
            return True
        handed.receive(None)
        return False

    def _may_hand_over(self, request: RunRequest) -> bool:
        root = Path(request.project_root)
        record = str(root / request.build_record_path)
        if record not in self._built or not os.path.isfile(record):
            return False
        bound_to_run = self._built[record] or not (root / request.result_path).exists()
        return (
            bound_to_run
            and request.runtime.runs_in_any_process
            and SnapshotUpdate.parse(request.update_snapshots) is SnapshotUpdate.NONE
        )

    def forget(self) -> None:
        """In a forked child: the helper is the parent's (see RunHelper.forget)."""
        if self._helper is not None:
            self._helper.forget()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            helper, self._helper = self._helper, None
        if helper is not None:
            helper.close()


def _last_run_was_long(run: RunRequest) -> bool:
    """Whether the spec's result (if any: its first line only) says its run took LONG_RUN_S."""
    previous = read_result_head(Path(run.project_root) / run.result_path)
    return previous is not None and previous.duration_s >= LONG_RUN_S


def switch(environ: Mapping[str, str] | None = None) -> str:
    """``ASTEST_RUN_AHEAD``: "0" (off), "always", or anything else (after a long run)."""
    value = (os.environ if environ is None else environ).get(SWITCH_VARIABLE, "1")
    return value.strip().lower()


def _enabled() -> bool:
    import multiprocessing

    return (
        switch() != "0"
        and multiprocessing.parent_process() is None
        and threading.current_thread() is threading.main_thread()
    )


_RUN_AHEAD = RunAhead()


def _close() -> None:
    _RUN_AHEAD.close()


def _forget_after_fork() -> None:
    # A doit -n worker must not share its parent's helper, nor wait for its answers.
    global _RUN_AHEAD
    _RUN_AHEAD.forget()
    _RUN_AHEAD = RunAhead()


atexit.register(_close)
os.register_at_fork(after_in_child=_forget_after_fork)


def plan_run(request: RunRequest, session: str) -> None:
    _RUN_AHEAD.plan(request, session)


def note_built(record: str, *, changed: bool) -> None:
    """A build action wrote this record (an absolute path) in this process; ``changed``: its
    content differs from the record it replaced (or there was none)."""
    _RUN_AHEAD.note_built(record, changed=changed)


def handed_over(run: RunRequest, session: str) -> HandedOver | None:
    """This run, if it was handed to the helper (not waiting yet: see ``HandedOver.outcome``)."""
    if not _enabled():
        return None
    return _RUN_AHEAD.handed_over(run, session)


@contextlib.contextmanager
def running_here(run: RunRequest, session: str, execute: Execute) -> Iterator[None]:
    """While doit's process runs ``run``; a run handed to the helper goes to ``execute`` there
    (the run task's action, which returns no more than the live line needs)."""
    if not _enabled():
        yield
        return
    with _RUN_AHEAD.running_here(run, session, execute, always=switch() == "always"):
        yield
