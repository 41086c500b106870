"""The fuzz run action: one fuzz file of one mode, in embedded wasmtime, as as-test fuzzes.

as-test runs fuzz builds in its own Node process through the bindings helper, ignoring the
mode's runtime command; here the bindings imports are served in-process the same way, so the
runtime command is ignored too. Like a spec run, a failure is data in the result file; doit is
told the task succeeded so that every other fuzz file still runs, and the summary fails the run.
"""

from __future__ import annotations

import sys
import time
import traceback
from dataclasses import replace
from pathlib import Path

from doit.exceptions import TaskFailed

from astest_tasks.actions.task_failure import failed_task
from astest_tasks.build.build_check import UnusableBuild, check_build
from astest_tasks.config.pipeline import task_command
from astest_tasks.core.disk_space import DiskFull
from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import for_stream
from astest_tasks.fuzz.crash_records import FuzzCrash, write_fuzz_crash_record
from astest_tasks.fuzz.fuzzer_report import FuzzerOutcome, FuzzReportError, parse_fuzz_report
from astest_tasks.fuzz.results import FuzzResult, write_fuzz_result
from astest_tasks.fuzz.runs import FuzzCampaign, replay_command
from astest_tasks.model.results import SpecIdentity
from astest_tasks.output.terminal import Palette, use_colour
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.guest_run import GuestRun
from astest_tasks.run.limit_messages import (
    LimitedRun,
    LimitMessage,
    memory_exhausted,
    output_flooded,
    timed_out,
)
from astest_tasks.run.limits import ModeLimits
from astest_tasks.run.wasm_compiler import CompilerChoiceError, compiler_for_hot_code


@frozen
class FuzzRunRequest:
    """What one fuzz run task asks; handed to the action whole (a frozen, picklable record)."""

    project_root: str
    fuzz_file: SpecIdentity  # the fuzz file and its mode (built for bindings)
    wasm_path: str
    build_record_path: str
    result_path: str
    crash_dir: str
    limits: ModeLimits
    campaign: FuzzCampaign  # runs, seed, and the --fuzz-runs override
    group: str  # the fuzz tasks' group: <task creator>:fuzz
    command: str  # what runs the tasks, for the hints: doit, or the astest command
    options_command: str  # how a hint gives an option: `doit astest --timeout 5`

    @property
    def task_name(self) -> str:
        return f"{self.group}:{self.fuzz_file.mode}:{self.fuzz_file.spec_id}"

    @property
    def run_command(self) -> str:
        return task_command(self.command, self.task_name)

    @property
    def build_command(self) -> str:
        """The command that builds the fuzz file again, as a failed build's hint gives it."""
        build_task = f"{self.group}:build:{self.fuzz_file.mode}:{self.fuzz_file.spec_id}"
        return task_command(self.command, build_task)


def run_fuzz_file(run: FuzzRunRequest, session: str) -> bool | TaskFailed:
    """A full disk fails the task, and the result it would have replaced stays."""
    root = Path(run.project_root)
    started = time.perf_counter()
    try:
        result = _execute(run, root, session)
    except DiskFull as exc:
        return failed_task(exc)
    except Exception:  # a bug of ours must fail this file, not the whole doit run
        details = "internal error in astest-tasks:\n" + traceback.format_exc()
        result = _failed(run, session, "run", details, "")
    result = replace(result, duration_s=time.perf_counter() - started)
    try:
        write_fuzz_result(root / run.result_path, result)
    except DiskFull as exc:
        return failed_task(exc)
    _announce(result)
    return True


def _execute(run: FuzzRunRequest, root: Path, session: str) -> FuzzResult:
    build = check_build(root, run.build_record_path, run.build_command)
    if isinstance(build, UnusableBuild):
        return _failed(run, session, "build", build.details, build.command)

    from astest_tasks.run.wasm_host import HostLimits, run_module  # wasmtime: only when running

    try:
        compiler = compiler_for_hot_code()
    except CompilerChoiceError as exc:
        return _failed(run, session, "run", str(exc), build.command)
    channel = ProtocolChannel(
        None, output_limit=run.limits.output_bytes, fuzz_config=run.campaign.reply()
    )
    limits = HostLimits.of(run.limits)
    guest = run_module(root / run.wasm_path, "bindings", channel, limits, {}, compiler=compiler)
    fuzzers, problem = _judge(run, guest, channel)
    crash = FuzzCrash(
        file=run.fuzz_file.path,
        file_id=run.fuzz_file.spec_id,
        mode=run.fuzz_file.mode,
        seed=run.campaign.seed,
        error=problem,
        stdout=channel.output_text,
        stderr=guest.stderr,
        cwd=str(root),
        build_command=build.command,
        repro_command=replay_command(
            run.run_command, run.campaign.seed, run.campaign.override.text
        ),
    )
    crash_logs = _write_crash_records(run, root, crash, fuzzers)
    return FuzzResult(
        file=run.fuzz_file.path,
        file_id=run.fuzz_file.spec_id,
        mode=run.fuzz_file.mode,
        run_command=run.run_command,
        passed=not problem and all(fuzzer.ok for fuzzer in fuzzers),
        stage="run",
        seed=run.campaign.seed,
        seed_is_random=run.campaign.seed_is_random,
        runs_override=run.campaign.override.text,
        fuzzers=fuzzers,
        duration_s=guest.elapsed_s,
        session=session,
        build_command=build.command,
        error=problem,
        output=channel.output_text,
        crash_records=tuple(crash_logs),
    )


def _judge(
    run: FuzzRunRequest, guest: GuestRun, channel: ProtocolChannel
) -> tuple[tuple[FuzzerOutcome, ...], str]:
    """The fuzzers' outcomes, and why the campaign itself failed ("" when it did not)."""
    if guest.start_failure is not None:
        return (), f"the fuzz build could not be started: {guest.start_failure}"
    limit_hit = _limit_hit(run, guest, channel)
    if limit_hit is not None:
        return (), f"{limit_hit.title}\n{limit_hit.details}"
    if guest.exit_code != 0 or guest.trap:
        # as-test: a trap aborts the whole instance, so no fuzzer reports.
        cause = (
            f"the module trapped: {guest.trap}" if guest.trap else f"exit code {guest.exit_code}"
        )
        return (), f"the campaign crashed ({cause}) with seed {run.campaign.seed}"
    if channel.report_problem is not None:
        return (), f"the fuzz report could not be read: {channel.report_problem}"
    if channel.report_payload is None:
        if not channel.fuzz_config_asked:
            return (), (
                "no fuzz report, and the module never asked for its fuzz config: was it built "
                "with --use AS_TEST_FUZZ=1, and does the file call run()?"
            )
        return (), "the campaign ended without sending its fuzz report"
    try:
        fuzzers = parse_fuzz_report(channel.report_payload)
    except FuzzReportError as exc:
        return (), str(exc)
    return fuzzers, ""


def _limit_hit(
    run: FuzzRunRequest, guest: GuestRun, channel: ProtocolChannel
) -> LimitMessage | None:
    """The limit that stopped the campaign, worded as a spec's (None when none did): only the
    subject and the fuzz group its hint runs differ, and a campaign may also run fewer times."""
    campaign = LimitedRun(
        "the campaign",
        run.options_command,
        tasks=run.group,
        shorter_run="run fewer iterations with ASTEST_FUZZ_RUNS",
    )
    if guest.timed_out:
        return timed_out(campaign, run.limits.timeout_s)
    if channel.over_limit:
        return output_flooded(campaign, run.limits.output_mib)  # as given, not bytes / MIB
    if guest.memory_exhausted:
        return memory_exhausted(campaign, run.limits.memory_mib)
    return None


def _write_crash_records(
    run: FuzzRunRequest, root: Path, crash: FuzzCrash, fuzzers: tuple[FuzzerOutcome, ...]
) -> list[str]:
    logs: list[str] = []
    try:
        if crash.error:
            logs.append(write_fuzz_crash_record(root, run.crash_dir, crash, None))
        for fuzzer in fuzzers:
            if fuzzer.ok:
                continue
            seed = fuzzer.failures[0].seed if fuzzer.failures else run.campaign.seed
            message = fuzzer.assertion.message or (
                f"fuzz failure in {fuzzer.name} after {fuzzer.runs} runs"
            )
            repro = replay_command(run.run_command, seed)
            own = replace(crash, error=message, repro_command=repro)
            logs.append(write_fuzz_crash_record(root, run.crash_dir, own, fuzzer))
    except DiskFull:
        raise  # the task fails with it, as a spec's does (run_action.py); not a note
    except OSError as exc:
        logs.append(f"(could not write the crash record in {run.crash_dir}: {exc})")
    return logs


def _failed(
    run: FuzzRunRequest, session: str, stage: str, error: str, build_command: str
) -> FuzzResult:
    return FuzzResult.without_outcomes(
        file=run.fuzz_file.path,
        file_id=run.fuzz_file.spec_id,
        mode=run.fuzz_file.mode,
        run_command=run.run_command,
        session=session,
        error=error,
        stage=stage,
        seed=run.campaign.seed,
        seed_is_random=run.campaign.seed_is_random,
        runs_override=run.campaign.override.text,
        build_command=build_command,
    )


def _announce(result: FuzzResult) -> None:
    """One line on stderr as a campaign finishes, like a spec's live line."""
    from astest_tasks.output.fuzz_summary import fuzz_line  # the summary's own wording

    stream = sys.stderr
    stream.write(
        for_stream(fuzz_line(result, Palette(use_colour(stream)), cached=False) + "\n", stream)
    )
    stream.flush()
