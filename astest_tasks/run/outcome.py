"""Turn how a spec's run ended into the suites that are counted, by the installed as-test's rules.

A clean run contributes its report. Everything else adds a failing ``runtime-error`` suite with a
single failing test, as as-test does, so totals agree with ``npx ast test``; the message keeps
what the spec managed to say before it died (suites finished, where it stopped, its output).
A runtime that sent no report is a failure under every version, except (``run_rules.RunRules``)
from as-test 1.5.1 one that reached ``event:file-end`` (its report is rebuilt from the events),
and from 1.5.3 one that sent nothing at all and exited cleanly (an empty spec: skipped). The
rules, in the order they are tried, are docs/design/host-contract.md §4.8.
"""

from __future__ import annotations

from dataclasses import field

from astest_tasks.config.as_test_version import OLDEST_TESTED, AsTestVersion
from astest_tasks.config.run_rules import RunRules
from astest_tasks.core.frozen import frozen
from astest_tasks.model.guest_report import (
    ReportError,
    Suite,
    Verdict,
    normalize_verdict,
    runtime_error_suite,
)
from astest_tasks.model.report_parsing import parse_report
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.guest_run import GuestRun
from astest_tasks.run.limit_messages import (
    LimitedRun,
    memory_exhausted,
    output_flooded,
    timed_out,
)
from astest_tasks.run.limits import MIB

# Node's WASI prints this on every run; as-test drops it before judging stderr
# (docs/design/host-contract.md §4.8).
_IGNORED_STDERR = ("ExperimentalWarning: WASI is an experimental feature", "--trace-warnings")


OLDEST = AsTestVersion.parse(OLDEST_TESTED)  # a verdict asked without rules: 1.0.7's


@frozen
class RunVerdictInput:
    spec_basename: str
    timeout_s: float
    memory_limit_mib: float = 1024
    # As given (0.1), for the message: the channel's byte limit reads back as 0.0999994 MiB.
    output_limit_mib: float | None = None  # None: the channel's limit, in MiB
    options_command: str = "doit astest"  # how the fixes give an option: `doit astest --x`
    rules: RunRules = field(default_factory=lambda: RunRules.for_version(OLDEST))
    last_pass_s: float | None = None  # how long its last run took, if that run passed


def decide_suites(
    run: GuestRun, channel: ProtocolChannel, spec: RunVerdictInput
) -> tuple[tuple[Suite, ...], str]:
    """The suites to count, and a one-line reason when the runtime itself failed ("" if not)."""
    stdout = channel.output_text
    stderr = _meaningful_stderr(run.stderr)
    progress = channel.progress.describe()

    if run.start_failure is not None:
        title = "failed to start test runtime"
        return _only_failure(spec, title, run.start_failure, stdout, stderr), title

    suites: tuple[Suite, ...] | None = None
    problem = channel.report_problem
    if problem is None and channel.report_payload is not None:
        try:
            suites = parse_report(channel.report_payload)
        except ReportError as exc:
            problem = str(exc)

    limited = LimitedRun("the spec", spec.options_command)
    if run.timed_out:
        hit = timed_out(limited, spec.timeout_s, spec.last_pass_s)
        details = _join(hit.details, _overrun_note(run, spec.timeout_s), progress)
        return _append(suites, spec, hit.title, details, stdout, stderr), hit.title
    if channel.over_limit:
        limit_mib = spec.output_limit_mib
        if limit_mib is None:
            limit_mib = channel.output_limit / MIB
        hit = output_flooded(limited, limit_mib)
        details = _join(hit.details, progress)
        return _append(suites, spec, hit.title, details, stdout, stderr), hit.title
    if run.memory_exhausted:
        hit = memory_exhausted(limited, spec.memory_limit_mib)
        details = _join(hit.details, _exit_note(run), progress)
        return _append(suites, spec, hit.title, details, stdout, stderr), hit.title
    if problem is not None:
        title = "runtime returned an invalid report payload"
        details = _join(f"could not parse report payload: {problem}", progress)
        return _only_failure(spec, title, details, stdout, stderr), title
    if suites is None and spec.rules.events_rebuild_report:
        rebuilt = _rebuilt_from_events(run, channel, spec)
        if rebuilt is not None:
            return rebuilt
    if suites is None and is_empty_spec(run, channel, spec.rules):
        return (), ""
    if suites is None:
        title = "test runtime exited without sending a report"
        details = _join("missing report payload from test runtime", _exit_note(run), progress)
        return _only_failure(spec, title, details, stdout, stderr), title
    if run.exit_code != 0 or stderr:
        title = (
            f"test runtime failed with exit code {run.exit_code}"
            if run.exit_code != 0
            else "test runtime wrote to stderr"
        )
        details = _join(f"child process exited with code {run.exit_code}", stderr)
        return _append(suites, spec, title, details, stdout, stderr), title
    return suites, ""


def is_empty_spec(run: GuestRun, channel: ProtocolChannel, rules: RunRules) -> bool:
    """as-test 1.5.3+: a spec with no suites never calls ``run()``; a clean exit that sent no
    frame, no event and no stderr is an empty file, skipped with a warning, not a crash."""
    progress = channel.progress
    return (
        rules.empty_file_skips
        and run.start_failure is None
        and run.exit_code == 0
        and channel.report_payload is None
        and channel.data_frames == 0
        and not progress.file_started
        and not progress.file_ended
        and progress.suite_starts == 0
        and not _meaningful_stderr(run.stderr)
    )


def rebuilt_report_warning() -> str:
    return "runtime report payload missing; reconstructed result from streamed lifecycle events"


def empty_spec_warning(spec_path: str) -> str:
    return f"{spec_path} contains no tests; marked as skipped"


def _rebuilt_from_events(
    run: GuestRun, channel: ProtocolChannel, spec: RunVerdictInput
) -> tuple[tuple[Suite, ...], str] | None:
    """``synthesizeReportFromRuntimeEvents`` (as-test 1.5.1+): one "file" suite with the verdict
    the events gave; a runtime that stopped before ``event:file-end``, exited non-zero or wrote
    to stderr fails on top of it. None when no lifecycle event came at all."""
    progress = channel.progress
    if not progress.file_ended and progress.suite_starts <= 0 and progress.suite_ends <= 0:
        return None
    verdict = normalize_verdict(progress.file_verdict or None)
    if verdict is Verdict.NONE and progress.assert_failures > 0:
        verdict = Verdict.FAIL
    elif verdict is Verdict.NONE and progress.file_ended:
        verdict = Verdict.OK
    rebuilt = Suite(
        description=progress.file_name or spec.spec_basename,
        kind="file",
        depth=0,
        verdict=verdict,
        start_ms=0.0,
        end_ms=0.0,
        suites=(),
        tests=(),
        logs=(),
    )
    stdout = channel.output_text
    stderr = _meaningful_stderr(run.stderr)
    exited_early = not progress.file_ended
    if not exited_early and run.exit_code == 0 and not stderr:
        return (rebuilt,), ""
    if run.exit_code != 0:
        title = f"test runtime failed with exit code {run.exit_code}"
        first = f"child process exited with code {run.exit_code}"
    elif exited_early:
        title = "test runtime exited before completing the test file"
        first = "test runtime exited before reporting file completion"
    else:
        title, first = "test runtime wrote to stderr", ""
    details = _join(first, stderr, _exit_note(run) if run.trap else "", progress.describe())
    return _append((rebuilt,), spec, title, details, stdout, stderr), title


def _only_failure(
    spec: RunVerdictInput, title: str, details: str, stdout: str, stderr: str
) -> tuple[Suite, ...]:
    return (runtime_error_suite(spec.spec_basename, title, details, stdout, stderr),)


def _append(
    suites: tuple[Suite, ...] | None,
    spec: RunVerdictInput,
    title: str,
    details: str,
    stdout: str,
    stderr: str,
) -> tuple[Suite, ...]:
    failure = runtime_error_suite(spec.spec_basename, title, details, stdout, stderr)
    return (*(suites or ()), failure)


def _overrun_note(run: GuestRun, timeout_s: float) -> str:
    """Say so when the run took far longer than the limit: wasm is interrupted at the limit, but
    a runner's own Python code (a host function that blocks) is not, and ran on past it."""
    if run.elapsed_s <= timeout_s + max(1.0, timeout_s * 0.5):
        return ""
    return (
        f"it took {run.elapsed_s:.1f} s in all: the time beyond the limit was spent in host code "
        "(a runner's host function or an external runtime), which the limit cannot interrupt"
    )


def _exit_note(run: GuestRun) -> str:
    if run.trap:
        return f"the module trapped: {run.trap}"
    if run.exit_code != 0:
        return f"the spec exited with code {run.exit_code}"
    return ""


def _meaningful_stderr(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if not any(s in line for s in _IGNORED_STDERR)]
    return "\n".join(lines).strip()


def _join(*parts: str) -> str:
    return "\n".join(part for part in parts if part)
