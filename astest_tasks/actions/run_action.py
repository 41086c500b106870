"""The run task's action: run one built spec in its mode's runtime, decide its result, and
record it.

A module-level function taking plain data (frozen dataclasses), so ``doit -n N`` can ship it to
worker processes under any multiprocessing start method. A spec's failure is recorded in its
result file and the action returns success to doit; only the summary fails the doit run. A failing
run task would stop doit (without ``--continue``) and skip every other spec, and would lose its
saved state.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import sys
import time
import traceback
from dataclasses import dataclass, replace
from pathlib import Path

from doit.exceptions import TaskFailed

from astest_tasks.actions.remote_actions import fetch_run, finish_uploads, settle_remote, store_run
from astest_tasks.actions.snapshot_state import SNAPSHOT_STATE, snapshot_state
from astest_tasks.actions.task_failure import failed_task
from astest_tasks.build.build_check import UnusableBuild, check_build
from astest_tasks.core.disk_space import DiskFull
from astest_tasks.core.errors import UserError
from astest_tasks.core.guest_text import for_stream
from astest_tasks.coverage.model import coverage_from_dict, coverage_from_payload
from astest_tasks.model.counting import count, failures, file_verdict
from astest_tasks.model.crash_records import CrashCommands, remove_crash_record, write_crash_record
from astest_tasks.model.guest_report import Suite
from astest_tasks.model.results import (
    SnapshotCounts,
    SpecResult,
    Stage,
    Status,
    failure_result,
    read_result_head,
    status_of,
    write_result,
)
from astest_tasks.model.snapshots import SnapshotStore
from astest_tasks.model.spec_logs import write_spec_log
from astest_tasks.output.console import live_line
from astest_tasks.output.progress import finished_count
from astest_tasks.output.terminal import Palette, use_colour
from astest_tasks.remote.task_keys import RemoteTask
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.guest_run import GuestRun
from astest_tasks.run.outcome import (
    RunVerdictInput,
    decide_suites,
    empty_spec_warning,
    is_empty_spec,
    rebuilt_report_warning,
)
from astest_tasks.run.run_request import RunRequest
from astest_tasks.run.runtime import RunnableSpec, SpecLimits
from astest_tasks.run.wasm_compiler import WasmCompiler, other_compiler
from astest_tasks.schedule.scheduler import scheduler


def run_spec(
    run: RunRequest, session: str, remote: RemoteTask | None = None
) -> dict[str, str] | TaskFailed:
    """Run one spec; returns what doit saves with the task: the snapshot files' state after it.
    ``remote``: the shared cache is asked first, and a plain pass is stored in it (by the run
    ahead's helper, when the run was handed to it). A full disk fails the task, and the result
    it would have replaced stays (task_failure.py)."""
    try:
        return _run_and_announce(run, session, remote)
    except DiskFull as exc:
        return failed_task(exc)


def _run_and_announce(run: RunRequest, session: str, remote: RemoteTask | None) -> dict[str, str]:
    planner = scheduler()
    handed = planner.handed_over(run, session)
    outcome = None
    if handed is not None:
        # The next build compiles while the helper finishes this spec, as it would beside a run.
        planner.compile_next(run.pipeline.basename, run.spec.mode, run.spec.spec_id)
        try:
            outcome = handed.outcome()
        except Exception:  # only a head start: the spec runs here instead
            outcome = None
    if outcome is not None:
        result, state = outcome
    else:
        with planner.running_here(run, session, execute_handed_over):
            result, state = execute_run(run, session, remote)
    _announce(result, run, session)
    return state


def execute_handed_over(
    run: RunRequest, session: str, remote: RemoteTask | None = None
) -> tuple[SpecResult, dict[str, str]]:
    """``execute_run`` in the run ahead's helper process (run_ahead.py): what goes back is what
    the live line needs; the expectations stay in the result file the helper wrote. Its uploads
    end before it answers: the summary, in doit's process, counts what the helper published."""
    result, state = execute_run(run, session, remote)
    finish_uploads(remote)
    return replace(result, suites=(), failures=(), output="", coverage=None), state


def execute_run(
    run: RunRequest, session: str, remote: RemoteTask | None = None
) -> tuple[SpecResult, dict[str, str]]:
    """Everything a run task does but its live line: run, decide, write the result and the files
    beside it. With a remote cache, a passing result stored there is taken instead of running."""
    root = Path(run.project_root)
    lookup = None
    if remote is not None:
        lookup, fetched = fetch_run(remote, run)
        if fetched is not None:
            settle_remote(remote)
            return fetched, {SNAPSHOT_STATE: snapshot_state(root, run.snapshots.files)}
    started = time.perf_counter()
    try:
        result = _execute(run, session)
    except DiskFull:
        raise  # not this spec's failure: nothing is recorded
    except Exception:  # a bug of ours must fail this spec, not the whole run
        details = "internal error in astest-tasks:\n" + traceback.format_exc()
        result = _failure_result(run, session, Stage.RUN, "internal error", details, "")
    result = _with_duration(result, time.perf_counter() - started)
    if result.status is Status.FAILED and (result.error or result.stage is Stage.BUILD):
        result = _with_crash_record(run, root, result)
    else:  # a record describes the last run: this one needed none
        remove_crash_record(root, run.crash_dir, run.spec.spec_id, run.spec.mode)
    if run.logs_dir is not None:
        try:
            write_spec_log(root, run.logs_dir, result, run.task_command("run"))
        except DiskFull:
            raise  # not a note: the log would stay the last run's while the result moved on
        except OSError as exc:
            note = f"could not write the readable log in {run.logs_dir}: {exc}"
            result = replace(result, warnings=(*result.warnings, note))
    write_result(root / run.files.result, result)
    if remote is not None and lookup is not None:
        store_run(remote, lookup, run, result)
        settle_remote(remote)
    # Taken after the run, so snapshots this run wrote count as seen: the next plain doit is
    # cached. (As file_deps they could not be: a snapshot file may not exist yet.)
    return result, {SNAPSHOT_STATE: snapshot_state(root, run.snapshots.files)}


def _announce(result: SpecResult, run: RunRequest, session: str) -> None:
    """A live line per finished spec, on stderr: doit shows it at its default verbosity, and the
    summary (on stdout) stays the last word. Numbered in the order specs finish, under -n too."""
    if run.progress.total <= 0:
        return
    stream = sys.stderr
    palette = Palette(use_colour(stream))
    counting = (
        finished_count(Path(run.project_root) / run.progress.counter_file, session)
        if run.progress.counter_file
        else contextlib.nullcontext(None)
    )
    with counting as finished:
        place = run.progress.position if finished is None else finished
        stream.write(
            for_stream(live_line(result, place, run.progress.total, palette) + "\n", stream)
        )
        stream.flush()  # inside the lock: the next spec's line cannot overtake this one


def _with_crash_record(run: RunRequest, root: Path, result: SpecResult) -> SpecResult:
    """Leave the record of a spec that could not report, and point the summary at it."""
    run_again = run.task_command("run")
    commands = CrashCommands(
        cwd=str(root),
        build=result.build_command,
        run=run_again,
        repro=result.build_command if result.stage is Stage.BUILD else run_again,
    )
    try:
        log = write_crash_record(root, run.crash_dir, result, commands)
    except DiskFull:
        raise
    except OSError as exc:
        note = f"could not write the crash record in {run.crash_dir}: {exc}"
    else:
        note = f"crash record: {log}"
    return replace(result, warnings=(*result.warnings, note))


def _execute(run: RunRequest, session: str) -> SpecResult:
    root = Path(run.project_root)
    build = check_build(root, run.files.build_record, run.task_command("build"))
    if isinstance(build, UnusableBuild):
        return _failure_result(run, session, Stage.BUILD, build.error, build.details, build.command)
    # Read before this run replaces it: its first line only, as the whole file of a big spec is
    # megabytes of expectations. Whatever its verdict: a spec that timed out is heavy too.
    previous = read_result_head(root / run.files.result)
    try:
        ran = _run_with_snapshots(run, root, previous)
    except DiskFull:
        raise
    except UserError as exc:
        return _failure_result(run, session, Stage.RUN, "unreadable snapshots", str(exc), "")
    return _spec_result(run, session, build.command, previous, ran)


@dataclass
class _Ran:
    guest: GuestRun
    channel: ProtocolChannel
    snapshots: SnapshotStore


def _run_with_snapshots(run: RunRequest, root: Path, previous: SpecResult | None) -> _Ran:
    """Run the guest once, or twice when its stack ran out (UserError: unreadable snapshots)."""
    previous_run_s = None if previous is None else previous.duration_s
    snapshots = _load_snapshots(run, root)
    channel = _channel(run, snapshots)
    # The next build's compile runs in Node on the other core while this guest runs.
    scheduler().compile_next(run.pipeline.basename, run.spec.mode, run.spec.spec_id)
    guest = _run_guest(run, root, channel, previous_run_s)
    retry_with = other_compiler(guest.compiled_by) if guest.stack_exhausted else None
    if retry_with is not None:
        # wasmtime's two compilers lay out frames differently (either may go deeper, by how a
        # function looks), and a verdict must not depend on which one a spec got: the stack has
        # run out only when it runs out under both. Run the spec again from the start.
        snapshots = _load_snapshots(run, root)  # the first run changed them in memory only
        channel = _channel(run, snapshots)
        guest = _run_guest(run, root, channel, previous_run_s, retry_with)
    return _Ran(guest, channel, snapshots)


def _spec_result(
    run: RunRequest, session: str, build_command: str, previous: SpecResult | None, ran: _Ran
) -> SpecResult:
    root, guest, channel, snapshots = Path(run.project_root), ran.guest, ran.channel, ran.snapshots
    verdict_input = RunVerdictInput(
        spec_basename=posixpath.basename(run.spec.path),
        timeout_s=run.limits.timeout_s,
        memory_limit_mib=run.limits.memory_mib,
        output_limit_mib=run.limits.output_mib,
        options_command=run.pipeline.options_command,
        rules=run.rules,
        last_pass_s=_last_pass_seconds(previous),
    )
    suites, runtime_problem = decide_suites(guest, channel, verdict_input)
    counts = count(suites, run.rules.every_block_is_suite)
    # Obsolete entries can be told only after a run that asked every assertion: no crash, and
    # nothing skipped (a skipped test's snapshots are not asked for, yet still wanted; from
    # as-test 1.4.0 a skipped test is a skipped suite).
    complete = not runtime_problem and counts.tests_skipped == 0 and counts.suites_skipped == 0
    warnings = _run_warnings(run, ran, suites, runtime_problem)
    warnings += _snapshot_notes(snapshots, root, run, complete=complete)
    written = _snapshots_written(snapshots, root)
    snapshots.save_if_updated()
    return SpecResult(
        spec=run.spec.path,
        spec_id=run.spec.spec_id,
        mode=run.spec.mode,
        target=run.spec.target,
        status=status_of(file_verdict(suites)),
        stage=Stage.RUN,
        counts=counts,
        failures=tuple(failures(suites)),
        suites=suites,
        duration_s=guest.elapsed_s,
        session=session,
        build_command=build_command,
        error=runtime_problem,
        warnings=tuple(warnings),
        written=written,
        output=channel.output_text,
        snapshots=_snapshot_counts(snapshots),
        coverage=coverage_from_dict(channel.streamed_coverage)
        if channel.streamed_coverage is not None
        else coverage_from_payload(channel.report_payload),
        every_block_is_suite=run.rules.every_block_is_suite,
    )


def _run_warnings(
    run: RunRequest, ran: _Ran, suites: tuple[Suite, ...], runtime_problem: str
) -> list[str]:
    warnings = list(ran.channel.warnings)
    if is_empty_spec(ran.guest, ran.channel, run.rules):
        warnings.append(empty_spec_warning(run.spec.path))
    if ran.channel.report_payload is None and not runtime_problem and suites:
        warnings.append(rebuilt_report_warning())
    return warnings


def _snapshot_counts(snapshots: SnapshotStore) -> SnapshotCounts:
    return SnapshotCounts(
        matched=snapshots.matched,
        missing=snapshots.missing,
        mismatched=snapshots.mismatched,
        missing_keys=tuple(snapshots.missing_keys),
        created=snapshots.created,
        updated=snapshots.updated,
    )


def _last_pass_seconds(previous: SpecResult | None) -> float | None:
    """How long the spec's previous run took, when it passed (for a timeout's message)."""
    if previous is None or previous.status is not Status.PASSED:
        return None
    return previous.duration_s


def _snapshot_notes(
    snapshots: SnapshotStore, root: Path, run: RunRequest, *, complete: bool
) -> list[str]:
    where = os.path.relpath(snapshots.file_path, root)
    notes = [
        f"missing snapshot for {key}; create it with "
        f"`{run.pipeline.options_command} --update-snapshots=create` "
        f"(or ASTEST_UPDATE_SNAPSHOTS=create {run.pipeline.command})"
        for key in snapshots.missing_keys
    ]
    if complete:
        notes += [
            f"obsolete snapshot {key} in {where}: no assertion asked for it; delete the entry "
            "if it is no longer wanted (astest-tasks never drops entries)"
            for key in snapshots.obsolete_keys()
        ]
    return notes


def _snapshots_written(snapshots: SnapshotStore, root: Path) -> tuple[str, ...]:
    if not (snapshots.created or snapshots.updated):
        return ()
    where = os.path.relpath(snapshots.file_path, root)
    return (f"wrote {where}: {snapshots.created} snapshot(s) created, {snapshots.updated} updated",)


def _load_snapshots(run: RunRequest, root: Path) -> SnapshotStore:
    layout = run.snapshot_input_layout()
    snapshots = SnapshotStore.load(
        root,
        run.spec.path,
        run.snapshots.directory,
        input_patterns=None if layout is None else layout[1],
        normalize_prefix=run.rules.snapshot_prefix_normalized,
    )
    snapshots.update = run.snapshots.update
    snapshots.disabled = run.snapshots.no_snapshot
    return snapshots


def _channel(run: RunRequest, snapshots: SnapshotStore) -> ProtocolChannel:
    return ProtocolChannel(
        snapshots,
        output_limit=run.limits.output_bytes,
        coverage_detail=run.coverage_detail,
    )


def _run_guest(
    run: RunRequest,
    root: Path,
    channel: ProtocolChannel,
    previous_run_s: float | None,
    compiler: WasmCompiler | None = None,
) -> GuestRun:
    spec = RunnableSpec(
        project_root=root,
        spec_path=run.spec.path,
        wasm_path=run.files.wasm,
        target=run.spec.target,
        run_env=run.run_env,
        previous_run_s=previous_run_s,
        compiler=compiler,
    )
    limits = SpecLimits(timeout_s=run.limits.timeout_s, memory_bytes=run.limits.memory_bytes)
    return run.runtime.run(spec, channel, limits)


def _failure_result(
    run: RunRequest, session: str, stage: Stage, title: str, details: str, build_command: str
) -> SpecResult:
    return failure_result(
        run.spec, session, stage, title, details, build_command, run.rules.every_block_is_suite
    )


def _with_duration(result: SpecResult, seconds: float) -> SpecResult:
    return replace(result, duration_s=seconds)
