"""Run as-test's own CLI (`ast test`) on one spec in one mode and read its totals, so the
integration tests compare our verdicts and counts with the real as-test of the same version, in
the same test run.

Under 1.0.7 each spec runs alone, in a scratch copy of the project, so that one spec's numbers are
not blurred by another's: 1.0.7 runs every mode with the base runtime command and has no
selectors, so its copy's config is narrowed to the spec and given the stock Node runner of the
mode's target. 1.8 selects with its own `ast test <spec> --mode <mode>` on the project's config as
it is, and also writes a readable log per spec and mode with that file's verdict and counts, so
one `ast test` of several specs gives each one's numbers (``run_as_test_per_file``) for the cost
of one Node start and one warm-up of asc, not one per spec and mode.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.integration.toolchains import Toolchain

COUNT_LINE = re.compile(r"^(Files|Suites|Tests):\s+(\d+) failed,\s+(\d+) skipped,\s+(\d+) total")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# as-test 1.8's readable log of one spec in one mode (formatReadableLog).
_LOG_VERDICT = re.compile(r"^(PASS|FAIL|SKIP)  (\S+)$", re.MULTILINE)
_LOG_COUNTS = re.compile(
    r"^(Suites|Tests): (\d+) passed, (\d+) failed, (\d+) skipped$", re.MULTILINE
)


@dataclass(frozen=True)
class Totals:
    failed: int
    skipped: int
    passed: int


@dataclass(frozen=True)
class AsTestRun:
    spec: str
    mode: str
    command: str
    exit_code: int
    totals: dict[str, Totals]  # "files", "suites", "tests"; empty when as-test printed none
    output: str

    @property
    def verdict(self) -> str:
        files = self.totals.get("files")
        if files is None or files.failed or self.exit_code != 0:
            return "failed"
        return "passed" if files.passed else "skipped"

    def where(self) -> str:
        return f"{self.spec} [{self.mode}] (as-test: {self.command})"


def run_as_test(
    project_root: Path, spec: str, mode: str, toolchain: Toolchain, scratch: Path
) -> AsTestRun:
    """``ast test`` of ``toolchain`` on ``spec`` in ``mode``, in a copy of ``project_root`` made
    under ``scratch`` (build outputs, snapshots written and doit state are left out of it)."""
    return run_as_test_in_copy(project_root, spec, mode, toolchain, scratch)[0]


def run_as_test_in_copy(
    project_root: Path,
    spec: str,
    mode: str,
    toolchain: Toolchain,
    scratch: Path,
    flags: Sequence[str] = (),
) -> tuple[AsTestRun, Path]:
    """``run_as_test`` with ``flags`` after the selection, and the copy it ran in, whose files
    (e.g. the snapshots ``--create-snapshots`` wrote) the caller reads."""
    name = f"ast-{toolchain.id}-{mode}-{spec.replace('/', '_')}{''.join(flags)}"
    copy = _scratch_copy(project_root, name, toolchain, scratch)
    if toolchain.is_1_8:
        args = ["test", spec, "--mode", mode, *flags]
    else:
        _narrow_config_for_1_0(copy, spec, mode)
        args = ["test", "--mode", mode, *flags]
    shown = (
        "npx ast " + " ".join(args) + ("" if toolchain.is_1_8 else f" (input narrowed to {spec})")
    )
    return _run(copy, args, toolchain, spec, mode, shown), copy


def run_as_test_per_file(
    project_root: Path, specs: list[str], toolchain: Toolchain, scratch: Path
) -> dict[tuple[str, str], AsTestRun]:
    """as-test 1.8 only: one ``ast test <specs...>`` in every mode of the project's config, in a
    copy of ``project_root``; (spec, mode) -> that file's run as its own log tells it. The exit
    code of each is what ``ast test <spec> --mode <mode>`` exits with for that verdict."""
    assert toolchain.is_1_8, "as-test 1.0.7 blurs one spec's numbers with another's"
    return run_as_test_logged(project_root, ["test", *specs], toolchain, scratch)[1]


def run_as_test_logged(
    project_root: Path, args: list[str], toolchain: Toolchain, scratch: Path
) -> tuple[AsTestRun, dict[tuple[str, str], AsTestRun]]:
    """``ast <args>`` on a copy of ``project_root``: the whole run, and (spec, mode) -> each
    file's run as the readable log as-test wrote for it tells it (1.0.7 and 1.8 write one)."""
    name = f"ast-{toolchain.id}-logged-{'_'.join(args).replace('/', '_')[:80]}"
    copy = _scratch_copy(project_root, name, toolchain, scratch)
    logs = copy / ".as-test" / "logs"
    shutil.rmtree(logs, ignore_errors=True)  # ours, in the same format: only as-test's may count
    whole = _run(copy, args, toolchain, "", "", "npx ast " + " ".join(args))
    found: dict[tuple[str, str], AsTestRun] = {}
    for (spec, mode), log in read_spec_logs(logs).items():
        shown = f"{whole.command}, its log {log.path.relative_to(copy)}"
        exit_code = int(log.verdict == "FAIL")
        found[(spec, mode)] = AsTestRun(spec, mode, shown, exit_code, log.totals, log.text)
    assert found, f"{whole.command} wrote no logs:\n{whole.output[-1500:]}"
    return whole, found


@dataclass(frozen=True)
class SpecLog:
    """as-test 1.8's readable log of one spec in one mode."""

    path: Path
    verdict: str  # PASS, FAIL or SKIP
    totals: dict[str, Totals]  # "files" (this one file), "suites", "tests"
    text: str


def read_spec_logs(logs: Path) -> dict[tuple[str, str], SpecLog]:
    """(spec, mode) -> its log, for every log under ``logs`` (``<logs>/<mode>/…/<spec>.log``)."""
    found: dict[tuple[str, str], SpecLog] = {}
    for path in sorted(logs.glob("*/**/*.spec.log")):
        text = path.read_text()
        mode = path.relative_to(logs).parts[0]
        verdict = _LOG_VERDICT.search(text)
        assert verdict is not None, f"{path}: no verdict line in as-test's log:\n{text}"
        word = verdict[1]
        totals = {"files": Totals(int(word == "FAIL"), int(word == "SKIP"), int(word == "PASS"))}
        for kind, passed, failed, skipped in _LOG_COUNTS.findall(text):
            totals[kind.lower()] = Totals(int(failed), int(skipped), int(passed))
        found[(verdict[2], mode)] = SpecLog(path, word, totals, text)
    return found


def run_as_test_command(
    project_root: Path, args: list[str], toolchain: Toolchain, scratch: Path
) -> AsTestRun:
    """``ast <args>`` of ``toolchain`` on the whole project, in a copy made under ``scratch``."""
    copy = _scratch_copy(project_root, f"ast-{toolchain.id}-{'_'.join(args)}", toolchain, scratch)
    return _run(copy, args, toolchain, "", "", "npx ast " + " ".join(args))


def run_as_test_in_place(project_root: Path, args: list[str], toolchain: Toolchain) -> AsTestRun:
    """``ast <args>`` of ``toolchain`` in ``project_root`` itself (for commands that write
    nothing a later step of the test reads, or whose files it compares)."""
    return _run(project_root, args, toolchain, "", "", "npx ast " + " ".join(args))


def _scratch_copy(project_root: Path, name: str, toolchain: Toolchain, scratch: Path) -> Path:
    copy = scratch / name.replace("=", "_")
    shutil.copytree(
        project_root,
        copy,
        symlinks=True,
        ignore=shutil.ignore_patterns(".doit.db*", "build", "results", "node_modules"),
    )
    (copy / "node_modules").symlink_to(toolchain.node_modules)
    return copy


def _run(
    copy: Path, args: list[str], toolchain: Toolchain, spec: str, mode: str, shown: str
) -> AsTestRun:
    command = ["node", str(toolchain.node_modules / "as-test" / "bin" / "index.js"), *args]
    proc = subprocess.run(
        command,
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"},
        check=False,
    )
    output = ANSI.sub("", proc.stdout + proc.stderr)
    totals: dict[str, Totals] = {}
    for line in output.splitlines():
        match = COUNT_LINE.match(line.strip())
        if match:
            failed, skipped, total = (int(g) for g in match.groups()[1:])
            totals[match.group(1).lower()] = Totals(failed, skipped, total - failed - skipped)
    return AsTestRun(spec, mode, shown, proc.returncode, totals, output)


def _narrow_config_for_1_0(project: Path, spec: str, mode: str) -> None:
    config_path = project / "as-test.config.json"
    config = json.loads(config_path.read_text())
    mode_config = dict(config.get("modes", {}).get(mode, {}))
    build = {**config.get("buildOptions", {}), **mode_config.get("buildOptions", {})}
    target = build.get("target", "wasi")
    run_options = dict(mode_config.get("runOptions", {}))
    run_options.setdefault(
        "runtime", {"cmd": f"node ./.as-test/runners/default.{target}.js <file>"}
    )
    mode_config["runOptions"] = run_options
    config["input"] = [spec]
    config["modes"] = {mode: mode_config}
    config_path.write_text(json.dumps(config))
