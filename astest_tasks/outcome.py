"""Turn how a spec's run ended into the suites that are counted: as-test 1.0.7's rules.

A clean run contributes its report. Everything else adds a failing ``runtime-error`` suite with a
single failing test, as as-test does, so totals agree with ``npx ast test``; the message keeps
what the spec managed to say before it died (suites finished, where it stopped, its output).
"""

from __future__ import annotations

from dataclasses import dataclass

from astest_tasks.channel import ProtocolChannel
from astest_tasks.guest_run import GuestRun
from astest_tasks.report import ReportError, Suite, parse_report, runtime_error_suite

# Node's WASI prints this on every run; as-test drops it before judging stderr (§4.8).
_IGNORED_STDERR = ("ExperimentalWarning: WASI is an experimental feature", "--trace-warnings")


@dataclass(frozen=True)
class RunVerdictInput:
    spec_basename: str
    timeout_s: float
    memory_limit_mib: float = 1024
    options_command: str = "doit astest"  # how the fixes give an option: `doit astest --x`
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

    if run.timed_out:
        title = f"test runtime timed out after {spec.timeout_s:g} s ({_timeout_note(spec)})"
        details = _join(
            f"the spec was stopped after {spec.timeout_s:g} s of wall-clock time; if it is "
            f"merely slow, raise the limit with `{spec.options_command} --timeout SECONDS` or "
            "ASTEST_TIMEOUT",
            _overrun_note(run, spec.timeout_s),
            progress,
        )
        return _append(suites, spec, title, details, stdout, stderr), title
    if channel.over_limit:
        limit = _mib(channel.output_limit)
        title = f"the spec's output passed the limit of {limit} MiB"
        details = _join(
            f"it wrote more than {limit} MiB to stdout (frames and plain output) and was stopped "
            "there; if it really needs more, raise the limit with "
            f"`{spec.options_command} --output-limit MIB` or ASTEST_OUTPUT_LIMIT",
            progress,
        )
        return _append(suites, spec, title, details, stdout, stderr), title
    if run.memory_exhausted:
        limit = f"{spec.memory_limit_mib:g}"
        title = f"the spec ran out of memory at the limit of {limit} MiB"
        details = _join(
            f"its memory could not grow past the limit of {limit} MiB, and it failed there; if "
            "it really needs more, raise the limit with "
            f"`{spec.options_command} --memory-limit MIB` or ASTEST_MEMORY_LIMIT",
            _exit_note(run),
            progress,
        )
        return _append(suites, spec, title, details, stdout, stderr), title
    if problem is not None:
        title = "runtime returned an invalid report payload"
        details = _join(f"could not parse report payload: {problem}", progress)
        return _only_failure(spec, title, details, stdout, stderr), title
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


def _timeout_note(spec: RunVerdictInput) -> str:
    """Where the limit comes from, and what it compares with: a spec that passed in 19 s last
    time was probably slowed down, one that never passed probably hangs."""
    note = "limit: --timeout / ASTEST_TIMEOUT"
    if spec.last_pass_s is not None:
        note += f"; it passed in {spec.last_pass_s:.1f} s last time"
    return note


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


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):g}"


def _join(*parts: str) -> str:
    return "\n".join(part for part in parts if part)
