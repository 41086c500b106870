"""The ``astest`` command (also ``python -m astest_tasks``).

``astest init`` scaffolds a project, ``astest doctor`` checks its setup and ``astest merge``
combines shard reports; everything else is doit's command line with our tasks loaded
(standalone.py): ``astest``, ``astest list``, ``astest -n 2``, ``astest clean``, ``astest help``.
``astest --watch`` runs again on every change (watch.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from astest_tasks.commands.scaffold import TARGETS
from astest_tasks.core.errors import UserError
from astest_tasks.core.guest_text import for_stream
from astest_tasks.core.version import __version__

OWN_COMMANDS = ("init", "merge", "doctor", "--version")


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not arguments or arguments[0] not in OWN_COMMANDS:
        from astest_tasks.core.gc_pause import TASK_LAYER, FirstLoadKept

        # as a dodo.py's first ask does in doit's process (core/gc_pause.py)
        with FirstLoadKept(TASK_LAYER, keeps=_astest_runs_this_process):
            from astest_tasks.commands.as_test_flags import from_as_test_flags
            from astest_tasks.commands.watch import run_watch, watch_arguments

        try:
            arguments = from_as_test_flags(arguments)
        except UserError as exc:
            print(for_stream(f"ERROR: {exc}", sys.stderr), file=sys.stderr)
            return 3

        watched = watch_arguments(arguments)
        if watched is not None:
            return run_watch(watched)
        from astest_tasks.commands.standalone import run_doit  # doit's command line

        return run_doit(arguments)
    args = _parser(arguments[0]).parse_args(arguments)
    if args.command == "merge":
        from astest_tasks.commands.merge_command import merge_command

        reports = [Path(report) for report in args.reports]
        return merge_command(reports, Path(args.output), args.remote_cache, args.remote_cache_mode)
    if args.command == "doctor":
        from astest_tasks.commands.doctor import doctor_command

        return doctor_command(args)
    from astest_tasks.commands.init_command import run_init

    return run_init(args)


def _astest_runs_this_process() -> bool:
    """Whether this process is the astest command's own (its console script, or ``python -m
    astest_tasks``), rather than a caller of ``main`` inside a process of its own. Asked once
    the task layer is loaded, which holds the command line's reading."""
    from astest_tasks.plan.command_line import CommandLine

    return CommandLine.of(sys.argv).run_by_astest


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser for a command line that starts with ``command`` (None: any). The doctor's
    flags are made only for `astest doctor`: they come from the task options' declarations,
    which load the config readers and the doctor, and `astest --version` needs neither."""
    parser = argparse.ArgumentParser(
        prog="astest",
        description="Run as-test AssemblyScript specs as incremental doit tasks.",
        epilog=(
            "Any other command is doit's, with this project's as-test tasks loaded: `astest` "
            "runs them, `astest --watch` again on every change, `astest list`, "
            "`astest info TASK`, `astest -n 2`, `astest clean`; "
            "`astest help` lists doit's commands and `astest help run` the options."
        ),
    )
    parser.add_argument("--version", action="version", version=f"astest-tasks {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    init = commands.add_parser(
        "init",
        help="scaffold an as-test project run by doit (never overwrites a file)",
        description=(
            "Create as-test.config.json, dodo.py, package.json, an example spec and the default "
            "runners in DIRECTORY. Existing files are left alone and listed as skipped."
        ),
    )
    init.add_argument("directory", nargs="?", default=None, help="project folder [default: .]")
    init.add_argument("--dir", help="project folder, as as-test 1.8's --dir (same as DIRECTORY)")
    init.add_argument(
        "--target",
        choices=TARGETS,
        default="wasi",
        help="build target of the generated config [default: wasi]",
    )
    init.add_argument(
        "--example",
        choices=("minimal", "full", "none"),
        default="minimal",
        help="the example spec: one short spec, a fuller one, or none [default: minimal]",
    )
    init.add_argument("--enable", default="", help="features to turn on: coverage")
    init.add_argument("--disable", default="", help="features to leave off: coverage")
    init.add_argument(
        "--install", action="store_true", help="run `npm install` in the project afterwards"
    )
    init.add_argument(
        "-y", "--yes", action="store_true", help="accepted: init never asks questions"
    )
    init.add_argument(
        "--force",
        action="store_true",
        help="replace the files init manages instead of skipping existing ones",
    )
    doctor = commands.add_parser(
        "doctor",
        help="check the project's setup: config, Node.js, npm packages, runtimes, specs",
        description=(
            "One line per check with OK, WARN or ERROR, and a fix for each problem. Writes "
            "nothing into the project (a remote cache in read-write mode gets one probe blob "
            "and entry). Exits 1 when any check is an ERROR."
        ),
    )
    if command in (None, "doctor"):
        from astest_tasks.commands.doctor import add_doctor_arguments

        add_doctor_arguments(doctor)
    merge = commands.add_parser(
        "merge",
        help="combine the reports of CI shards (--shard=k/N) into one summary",
        description=(
            "Read each shard's report.json, print one summary (the same last line and exit code "
            "as an unsharded run) and write the merged report.json, junit.xml, TAP and CTRF. "
            "With a remote cache, publish every spec's duration there: the next workflow's "
            "shards balance by them."
        ),
    )
    merge.add_argument("reports", nargs="+", help="the shards' report.json files")
    merge.add_argument(
        "--output",
        default=".as-test/merged",
        help="folder for the merged reports [default: .as-test/merged]",
    )
    merge.add_argument(
        "--remote-cache",
        default=None,
        help="publish the shards' durations to this remote cache URL "
        "[default: ASTEST_REMOTE_CACHE]",
    )
    merge.add_argument(
        "--remote-cache-mode",
        default=None,
        help="read (publishes nothing) or read-write "
        "[default: ASTEST_REMOTE_CACHE_MODE, else read-write]",
    )
    return parser
