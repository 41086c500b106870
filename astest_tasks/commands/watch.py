"""``astest --watch``: one long-lived process that runs the affected specs on every save.

Each cycle is a plain ``astest`` run, in this process: doit's ``run`` command with our tasks
loaded (standalone.py), the same state file and backend, the same results and report.json. So
doit's own up-to-date checks pick exactly the affected tasks, and the next plain ``astest`` (or
``doit``) finds everything cached. What differs is only the printout: doit's task lines are
left out, and instead of the whole summary a cycle prints the specs it ran and the totals.

Between cycles a watchfiles notifier reports file events in the folders that hold the inputs of
the loaded tasks (watch_inputs.py). It is created before the first cycle and never paused, so a
save made while a cycle runs is seen after it; bursts are gathered by its debounce. The idle time
is used (schedule/compile_ahead.py): the compile server is warmed between cycles, and the first
event of a saved source starts its build's compile while the rest of the burst is gathered and
the cycle loads its tasks. Tasks are loaded afresh each cycle, so an edited config, a new spec
or a new import counts at once.
Running doit in this process keeps the compile server pool (compile_pool.py) warm across
cycles, as it does across the builds of one run.

Ctrl-C or SIGTERM stops at once: doit closes its state file on the way out, every result and
report is written atomically, and the exit code is the last cycle's verdict (1 when one was
interrupted), as ``ast test --watch`` does since as-test 1.5.1.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from doit.reporter import ConsoleReporter

from astest_tasks.commands.standalone import DOIT_CONFIG, AstestLoader, AstestMain
from astest_tasks.commands.watch_inputs import ChangeFilter, Stamp, WatchedInputs, inputs_of_tasks
from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import for_stream, inert_field
from astest_tasks.core.interrupts import unwind_on_sigterm
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.project_lock import wait_for_refused_lock
from astest_tasks.core.state_files import read_state_file
from astest_tasks.model.results import SpecResult
from astest_tasks.output.console import Shown, render_changed
from astest_tasks.output.terminal import Palette, use_colour
from astest_tasks.plan.command_line import command_line_given
from astest_tasks.plan.doit_argv import (
    doit_command,
    runs_in_worker_processes,
    task_options_first,
)
from astest_tasks.plan.options import TASK_PARAMS
from astest_tasks.plan.selection_options import DEFAULT_CONFIG
from astest_tasks.schedule.compiler_warmup import CompilerWarmup
from astest_tasks.schedule.scheduler import scheduler

WATCH_FLAG = "--watch"
DEBOUNCE_MS = 1600  # the longest a burst of events is gathered for
STEP_MS = 50  # a burst ends after this long without a new event
# How often the notifier looks for events: the first event of a save starts its build at once
# (the head start), so this delay is on the cycle's critical path and STEP_MS is not. A change is
# seen one to two steps after it; idle, looking every 5 ms costs about 0.4 % of a core (0.2 % at
# 10 ms, measured), and saves about 7 ms of a cycle of about 0.17 s.
FIRST_STEP_MS = 5
_CLEAR_SCREEN = "\x1b[2J\x1b[H"
DEFAULT_REPORT = ".as-test/report.json"  # until the first cycle's tasks say where it goes


class QuietReporter(ConsoleReporter):  # type: ignore[misc]  # doit is untyped
    """doit's console reporter without its ``.  task`` / ``--  task`` lines: failures and
    errors are still reported."""

    def execute_task(self, task: Any) -> None:
        pass

    def skip_uptodate(self, task: Any) -> None:
        pass

    def skip_ignore(self, task: Any) -> None:
        pass


class WatchLoader(AstestLoader):
    """The astest loader, keeping the tasks it loaded and hushing doit's task lines."""

    def __init__(self) -> None:
        super().__init__()
        self.tasks: list[Any] = []

    def load_doit_config(self) -> dict[str, Any]:
        return {**DOIT_CONFIG, "reporter": QuietReporter}

    def load_tasks(self, cmd: Any, pos_args: list[str]) -> list[Any]:
        self.tasks = super().load_tasks(cmd, pos_args)
        return self.tasks


@frozen
class Cycle:
    exit_code: int
    tasks: list[Any]  # what doit loaded; empty when loading failed (a broken config)
    config_path: str
    report: Path | None  # report.json, when the summary wrote it in this cycle
    # report.json when the run passed without the summary writing it: every task was up to
    # date (watching a project already built, or a save that changed no byte doit reads).
    up_to_date: Path | None = None


def watch_arguments(arguments: Sequence[str]) -> list[str] | None:
    """The doit arguments of an ``astest --watch`` line, or None when it does not watch."""
    if WATCH_FLAG not in arguments:
        return None
    return [word for word in arguments if word != WATCH_FLAG]


def run_watch(arguments: Sequence[str], out: TextIO | None = None) -> int:
    """Run, then run again on every change, until Ctrl-C or SIGTERM; returns the exit code."""
    stream = out or sys.stdout
    command = doit_command(arguments)
    if command != "run":
        sys.stderr.write(
            f"ERROR: --watch runs the tasks again on every change, and `{command}` runs none; "
            f"fix: drop --watch, or use `astest --watch` with run options\n"
        )
        return 3
    unwind_on_sigterm()
    from watchfiles._rust_notify import RustNotify  # the notifier behind watchfiles.watch

    doit_args = task_options_first(arguments, TASK_PARAMS)
    changes = ChangeFilter(WatchedInputs(frozenset({os.path.abspath(DEFAULT_CONFIG)})))
    notifier = _Notifier(RustNotify)
    ahead = _CompileAhead(in_workers=runs_in_worker_processes(doit_args))
    passed = False
    changed: list[str] = []
    headline: str | None = None  # what starts a cycle that no file change started
    report = Path(DEFAULT_REPORT)
    try:
        notifier.follow(changes.inputs.folders)
        while True:
            before = changes.inputs.stamps()
            _start_cycle(stream, changed, headline)
            passed = False  # until this cycle says otherwise: an interrupted one counts as failed
            ahead.stop_warming()
            cycle = _run_cycle(doit_args, report)
            passed = cycle.exit_code == 0
            report = _report_path(cycle.tasks) or report
            if cycle.tasks:
                changes.restamp(inputs_of_tasks(cycle.tasks, cycle.config_path), before)
            else:  # nothing loaded: keep watching what we knew, and the config
                config = os.path.abspath(cycle.config_path)
                known = changes.inputs.files | {config}
                changes.restamp(WatchedInputs(known), before)
            # Watching the new folders before saying so: a save right after the line counts.
            notifier.follow(changes.inputs.folders)
            # Saves made while the cycle ran, which a new notifier cannot have seen.
            pending = changes.changed(changes.inputs.files)
            _end_cycle(stream, cycle, len(changes.inputs.files))
            # Refused because another doit holds the project: nothing could be loaded, so there
            # is nothing to watch yet; run again as soon as that doit is done.
            if not cycle.tasks and wait_for_refused_lock(lambda who: _say_waiting(stream, who)):
                changed, headline = [], "the other doit has finished: running again"
            else:
                if not pending:
                    ahead.warm()
                changed = pending or notifier.next_changes(changes, ahead.head_start)
                headline = None
    except KeyboardInterrupt:
        stream.write("\nstopped watching\n")
        stream.flush()
    finally:
        ahead.close()
        notifier.close()
    return 0 if passed else 1


class _Notifier:
    """A watchfiles notifier over a set of folders, made anew when the set changes (a new
    folder of specs or imports) and otherwise kept, so that no event is lost between cycles."""

    def __init__(self, factory: Any) -> None:
        self._factory = factory
        self._folders: list[str] = []
        self._notify: Any = None

    def follow(self, folders: list[str]) -> None:
        existing = [folder for folder in folders if os.path.isdir(folder)]
        if self._notify is not None and existing == self._folders:
            return
        self.close()
        # One level deep: the folders are those that hold inputs, and a recursive watch of
        # the project would walk node_modules. A folder removed meanwhile is left out.
        try:
            self._notify = self._factory(existing or [os.getcwd()], False, False, 300, False, True)
        except FileNotFoundError:
            existing = [folder for folder in existing if os.path.isdir(folder)]
            self._notify = self._factory(existing or [os.getcwd()], False, False, 300, False, True)
        self._folders = existing

    def next_changes(
        self, changes: ChangeFilter, head_start: Callable[[list[str]], object] | None = None
    ) -> list[str]:
        """Block until an input changes; the changed paths. ``head_start`` is told of the first
        changes at once, while the rest of their burst is still being gathered."""
        while True:
            raw = self._notify.watch(DEBOUNCE_MS, FIRST_STEP_MS, 0, None)
            found = self._inputs_changed(raw, changes)
            if found:
                break
        if head_start is not None:
            head_start(found)
        deadline = time.monotonic() + DEBOUNCE_MS / 1000
        while (left_ms := int((deadline - time.monotonic()) * 1000)) > 0:
            # The burst ends once STEP_MS pass without another event.
            raw = self._notify.watch(DEBOUNCE_MS, FIRST_STEP_MS, min(STEP_MS, left_ms), None)
            if raw == "timeout":
                break
            found = sorted(set(found) | set(self._inputs_changed(raw, changes)))
        return found

    @staticmethod
    def _inputs_changed(raw: object, changes: ChangeFilter) -> list[str]:
        if raw == "signal":  # Ctrl-C or SIGTERM arrived while waiting
            raise KeyboardInterrupt
        if isinstance(raw, set):
            return changes.changed(path for _change, path in raw)
        return []

    def close(self) -> None:
        if self._notify is not None:
            self._notify.close()
            self._notify = None


class _CompileAhead:
    """Compiles that use the idle time of a watch: the compile server warmed between cycles,
    and a saved source's build started on the save's first event (compile_ahead.py). Neither
    under ``-n N``: the builds run in doit's worker processes, which have servers of their own."""

    def __init__(self, in_workers: bool) -> None:
        self._off = in_workers
        self._warmup = CompilerWarmup()

    def warm(self) -> None:
        if not self._off:
            scheduler().warm_compiler(self._warmup)

    def stop_warming(self) -> None:
        self._warmup.stop()

    def close(self) -> None:
        """At the end of the watch. The compile servers close first: a warm-up compile under way
        then ends with its server, and its thread removes its scratch folder, which a thread
        cut off at exit would leave behind."""
        self._warmup.stop(wait=False)
        scheduler().compile_pool.close()
        self._warmup.stop()

    def head_start(self, changed: list[str]) -> None:
        """Only for saved sources: an edited config or runner changes what the builds are,
        which only the cycle's reloaded tasks tell."""
        self._warmup.stop()
        if not self._off and all(path.endswith(".ts") for path in changed):
            scheduler().compile_changed(changed)


def _run_cycle(doit_args: list[str], report: Path) -> Cycle:
    """One plain run; ``report`` is where the last cycle's summary wrote report.json."""
    loader = WatchLoader()
    before = _mtime(report)
    summary = io.StringIO()  # the plain run's whole summary: a cycle prints its own
    with command_line_given("astest", doit_args), contextlib.redirect_stdout(summary):
        code = int(AstestMain(loader).run(list(doit_args)) or 0)
    report = _report_path(loader.tasks) or report
    written = report if report.exists() and _mtime(report) != before else None
    unchanged = report if written is None and code == 0 and report.exists() else None
    return Cycle(code, loader.tasks, loader.config_path, written, unchanged)


def _start_cycle(stream: TextIO, changed: list[str], headline: str | None) -> None:
    if stream.isatty():
        stream.write(_CLEAR_SCREEN)
    clock = time.strftime("%H:%M:%S")
    if headline is not None:
        stream.write(f"[{clock}] {headline}\n")
    elif not changed:
        stream.write(f"[{clock}] astest --watch: first run\n")
    else:
        names = [os.path.relpath(path) for path in changed]
        shown = ", ".join(names[:3]) + (f" (+{len(names) - 3} more)" if len(names) > 3 else "")
        stream.write(for_stream(f"[{clock}] changed: {inert_field(shown)}\n", stream))
    stream.flush()


def _say_waiting(stream: TextIO, holder: str) -> None:
    stream.write(f"waiting for the other doit ({holder}) to finish; Ctrl-C stops\n")
    stream.flush()


def _end_cycle(stream: TextIO, cycle: Cycle, watched: int) -> None:
    palette = Palette(enabled=use_colour(stream))
    if cycle.report is not None:
        stream.write(for_stream(render_changed(_read_report(cycle.report), palette), stream))
    elif cycle.up_to_date is not None:
        # Nothing ran, so there are no spec lines to show: the totals of the last report,
        # which still holds, rather than a "stopped" line pointing at output there is none of.
        last = [Shown(result=item.result, cached=True) for item in _read_report(cycle.up_to_date)]
        stream.write("every result is up to date: nothing to run\n")
        stream.write(for_stream(render_changed(last, palette), stream))
    else:
        stream.write(f"the run stopped with exit code {cycle.exit_code} (see above)\n")
    stream.write(f"watching {watched} files for changes; Ctrl-C stops\n")
    stream.flush()


def _read_report(report: Path) -> list[Shown]:
    """The report's specs; none when it is not ours to read (core/state_files.py) or not a
    report.json of this version."""
    text = read_state_file(report)
    try:
        data = parse_json(text) if text is not None else {}
        return [
            Shown(result=SpecResult.from_json(json.dumps(entry["result"])), cached=entry["cached"])
            for entry in data.get("specs", [])
        ]
    except (ValueError, KeyError, TypeError, AttributeError):  # RecordError is a ValueError
        return []


def _report_path(tasks: list[Any]) -> Path | None:
    for task in tasks:
        meta = (getattr(task, "meta", None) or {}).get("astest", {})
        if meta.get("kind") == "summary" and meta.get("report"):
            return Path(str(meta["report"]))
    return None


def _mtime(path: Path) -> Stamp:
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)
