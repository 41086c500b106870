"""Run the next spec in a helper process while doit runs this one, once specs run long.

A plain ``doit`` runs one task at a time. The build prefetch already compiles the next spec
while one runs; on a suite whose guests take seconds each (a codec suite looping over tables of
tens of thousands of expectations) the runs themselves are the time, and they used one core of
two. So a serial doit runs two specs at once, as ``doit -n 2`` would run their tasks:

- The tasks are made spec by spec, each build before the previous run (``creator.py``): when
  doit runs one spec, the next is built, and an edited spec's modes follow each other.
- Once a run has gone on for ``LONG_RUN_S``, and from then on at the start of each run doit
  does itself (also at once when the spec's last run took that long), the next planned run is
  handed to the helper process (``run_helper.py``), which runs the run task's action with
  doit's ``sys.path`` and environment, as a ``doit -n`` worker would, and writes its result.
  A timer that fires after its run ended hands nothing over: doit may be on the next run.
- From then on doit runs that task whatever its files say (``checks.NotHandedOver``: the
  result the helper wrote could make it look up to date). Its action waits for the helper (at
  most the spec's time limit and a margin) and takes what it did, if the request, the session
  and every input file (the module, its build record, the runner scripts, the snapshot files)
  are as they were when it was handed over; otherwise, or if the helper failed, it runs the spec
  itself. Its live line, and whatever its runner printed, come then, in doit's order.

A run is handed over only when doit is bound to run it: doit built its spec in this very
invocation, and either it has no result yet (doit runs a task whose target is missing) or that
build changed its build record (a ``file_dep`` of the run). It writes no snapshots
(``--update-snapshots`` runs are not handed over), and its runtime runs anywhere (the browser's
warm session lives in doit's process). Only in a plain serial doit, from its main thread:
``doit -n N`` runs tasks side by side already. A hand-over doit never takes (doit stopped, or
was told to build a spec without running it) still writes that spec's result, a real run of
its current build; a watch cycle that begins while one is under way ends the helper first.
``ASTEST_RUN_AHEAD=0`` turns it off; ``ASTEST_RUN_AHEAD=always`` hands runs over from the
first one on, without waiting for a long run.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.core.guest_text import for_stream
from astest_tasks.model.results import SpecResult, read_result_head
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.run.run_request import RunRequest
from astest_tasks.schedule.build_prefetch import Stamps, input_stamps

if TYPE_CHECKING:  # the helper's module loads when a run is first handed over
    from astest_tasks.schedule.run_helper import Answer, RunHelper

SWITCH_VARIABLE = "ASTEST_RUN_AHEAD"
# A run this long is worth a second process: the helper costs about 0.3 s of CPU to start, and
# a spec handed to it also compiles its module for wasmtime there.
LONG_RUN_S = 0.3

# What a run task's action does but print its live line: the result, and what doit saves.
Outcome = tuple[SpecResult, dict[str, str]]
# The run task's action as the helper calls it: the request, the session, then what the task
# planned beside them (run_ahead.RunAhead.plan).
Execute = Callable[..., Outcome]


def _key(request: RunRequest) -> tuple[str, str, str]:
    return (request.pipeline.basename, request.spec.mode, request.spec.spec_id)


def _inputs(request: RunRequest) -> list[str]:
    root = Path(request.project_root)
    files = [request.files.wasm, request.files.build_record, *request.snapshots.files]
    files += request.runtime.input_files(root)
    return [str(root / name) for name in files]


# How long a run task waits for the helper beyond the spec's own time limit (which the helper
# enforces) before it gives up on it: the verdict and the result file take seconds at most.
ANSWER_MARGIN_S = 120.0
KEPT_SESSIONS = 8  # plans of earlier sessions (watch mode's cycles) are dropped beyond this


class HandedOver:
    """A run the helper has been given, and, once it is done, what it did.

    This and ``_Plan`` are plain classes: as dataclasses their methods were compiled each time
    the module loads, which every call does (issue 40)."""

    __slots__ = ("answer", "done", "give_up", "request", "session", "stamps")

    def __init__(
        self,
        request: RunRequest,
        session: str,
        stamps: Stamps,
        give_up: Callable[[], None],  # ends a helper that never answers
    ) -> None:
        self.request = request
        self.session = session
        self.stamps = stamps
        self.give_up = give_up
        self.answer: Answer | None = None
        self.done = threading.Event()

    def receive(self, answer: Answer | None) -> None:
        self.answer = answer
        self.done.set()

    def outcome(self) -> Outcome | None:
        """Wait for the helper; what it did, or None when the run task must run the spec."""
        limit = self.request.limits.timeout_s
        if not self.done.wait(limit + ANSWER_MARGIN_S if limit > 0 else None):
            self.give_up()  # so that it cannot write this spec's files while doit does
            return None
        answer = self.answer
        if answer is None or answer.problem:
            return None
        if input_stamps(list(self.stamps)) != self.stamps:
            return None  # an input changed meanwhile: doit's own run must see it
        # Where doit expects a run's prints: its own streams, captured or not as it decides.
        # Already made inert in the helper; doing it again changes nothing, and costs little.
        sys.stdout.write(for_stream(answer.stdout, sys.stdout))
        sys.stderr.write(for_stream(answer.stderr, sys.stderr))
        result, state = answer.value
        return result, state


class _Plan:
    """One session's run tasks (one pipeline of one doit invocation, or one watch cycle)."""

    __slots__ = ("built", "extra", "handed", "long_runs", "place", "planned")

    def __init__(self) -> None:
        self.planned: list[RunRequest] = []
        self.place: dict[tuple[str, str, str], int] = {}
        # What the run task's action takes after the request and session (its remote cache key).
        self.extra: dict[tuple[str, str, str], tuple[object, ...]] = {}
        # Build records this session's builds wrote (absolute paths), and whether each changed.
        self.built: dict[str, bool] = {}
        self.handed: set[tuple[str, str, str]] = set()  # ever handed over
        self.long_runs = False


class RunAhead:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._plans: dict[str, _Plan] = {}  # by session, oldest first
        self._plan_of_record: dict[str, str] = {}  # build record -> the session that plans it
        self._running: tuple[str, tuple[str, str, str]] | None = None  # doit's own run now
        self._handed: HandedOver | None = None
        self._helper: RunHelper | None = None
        self._closed = False

    def plan(self, request: RunRequest, session: str, extra: tuple[object, ...] = ()) -> None:
        """Remember a run task, in the order doit will meet it; ``extra``: the arguments its
        action takes after the request and the session, which the helper passes on too."""
        stale: RunHelper | None = None
        with self._lock:
            plan = self._plans.get(session)
            if plan is None:
                plan = self._plans[session] = _Plan()
                while len(self._plans) > KEPT_SESSIONS:
                    del self._plans[next(iter(self._plans))]
                handed = self._handed
                if handed is not None and not handed.done.is_set():
                    # Handed over in an earlier session (a watch cycle) and never taken: its
                    # late result must not land over the new cycle's. Its helper goes.
                    self._handed, stale, self._helper = None, self._helper, None
            key = _key(request)
            plan.extra[key] = extra
            place = plan.place.get(key)
            if place is not None:
                plan.planned[place] = request
            else:
                plan.place[key] = len(plan.planned)
                plan.planned.append(request)
            record = str(Path(request.project_root) / request.files.build_record)
            self._plan_of_record[record] = session
        if stale is not None:
            stale.close()

    def note_built(self, record: str, *, changed: bool) -> None:
        with self._lock:
            plan = self._plans.get(self._plan_of_record.get(record, ""))
            if plan is not None:
                plan.built[record] = changed

    def was_handed_over(self, key: tuple[str, str, str], session: str) -> bool:
        with self._lock:
            plan = self._plans.get(session)
            return plan is not None and key in plan.handed

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
        with self._lock:
            self._running = (session, _key(run))
            plan = self._plans.get(session)
        timer: threading.Timer | None = None
        try:
            if plan is not None and (always or plan.long_runs or _last_run_was_long(run)):
                plan.long_runs = True
                self.hand_next(run, session, execute)
            elif plan is not None:
                timer = threading.Timer(LONG_RUN_S, self._long_run, args=(run, session, execute))
                timer.daemon = True
                timer.start()
            yield
        finally:
            if timer is not None:
                timer.cancel()
            with self._lock:
                # A timer that fires from now on finds its run over: it hands nothing over.
                self._running = None

    def _long_run(self, run: RunRequest, session: str, execute: Execute) -> None:  # on a timer
        with self._lock:
            plan = self._plans.get(session)
            if plan is not None:
                plan.long_runs = True
        self.hand_next(run, session, execute)

    def hand_next(self, run: RunRequest, session: str, execute: Execute) -> bool:
        """Have the helper ``execute`` the run planned after ``run`` while doit runs ``run``, if
        it may go (see the module's docstring) and the helper is free."""
        try:
            return self._hand_next(run, session, execute)
        except Exception:  # only a head start: doit runs every spec itself from now on
            self.close()
            return False

    def _hand_next(self, run: RunRequest, session: str, execute: Execute) -> bool:
        with self._lock:
            plan = self._plans.get(session)
            if self._closed or plan is None or self._running != (session, _key(run)):
                return False
            if self._handed is not None:
                if not self._handed.done.is_set():
                    return False  # the helper is busy
                self._handed = None  # never taken: doit went past it
            place = plan.place.get(_key(run))
            if place is None or place + 1 >= len(plan.planned):
                return False
            following = plan.planned[place + 1]
            if not _may_hand_over(following, plan):
                return False
            helper = self._helper
            if helper is None or not helper.alive:
                try:
                    from astest_tasks.schedule.run_helper import RunHelper

                    helper = self._helper = RunHelper()
                except OSError:  # no process to be had (a limit on processes or files)
                    self._closed = True  # only a head start: doit runs every spec itself
                    return False
            handed = HandedOver(following, session, input_stamps(_inputs(following)), self._give_up)
            self._handed = handed
            # From now on doit runs this task whatever it finds (see NotHandedOver): its action
            # takes what the helper did, or runs the spec itself.
            plan.handed.add(_key(following))
        arguments = (following, session, *plan.extra.get(_key(following), ()))
        if helper.submit(execute, arguments, handed.receive):
            return True
        handed.receive(None)
        return False

    def _give_up(self) -> None:
        with self._lock:
            helper, self._helper, self._handed = self._helper, None, None
        if helper is not None:
            helper.close()

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


def _may_hand_over(request: RunRequest, plan: _Plan) -> bool:
    root = Path(request.project_root)
    record = str(root / request.files.build_record)
    if record not in plan.built or not os.path.isfile(record):
        return False
    bound_to_run = plan.built[record] or not (root / request.files.result).exists()
    return (
        bound_to_run
        and request.runtime.runs_in_any_process
        and request.snapshots.update is SnapshotUpdate.NONE
    )


def _last_run_was_long(run: RunRequest) -> bool:
    """Whether the spec's result (if any: its first line only) says its run took LONG_RUN_S."""
    previous = read_result_head(Path(run.project_root) / run.files.result)
    return previous is not None and previous.duration_s >= LONG_RUN_S


def switch(environ: Mapping[str, str] | None = None) -> str:
    """``ASTEST_RUN_AHEAD``: "0" (off), "always", or anything else (after a long run)."""
    value = (os.environ if environ is None else environ).get(SWITCH_VARIABLE, "1")
    return value.strip().lower()


def enabled() -> bool:
    """Hand runs over only from doit's main process and thread, unless switched off."""
    from astest_tasks.core.process_role import in_doits_main_thread  # when a run is (issue 40)

    return switch() != "0" and in_doits_main_thread()
