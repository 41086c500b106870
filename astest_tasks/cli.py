"""The ``astest`` command (also ``python -m astest_tasks``): project scaffolding for now."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from astest_tasks.scaffold import scaffold_project
from astest_tasks.version import __version__


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command != "init":
        parser.print_help()
        return 2
    return _init(Path(args.directory), args.target)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="astest",
        description="Run as-test AssemblyScript specs as incremental doit tasks.",
        epilog="Run the specs with `doit` in the project folder.",
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
    init.add_argument("directory", nargs="?", default=".", help="project folder [default: .]")
    init.add_argument(
        "--target",
        choices=("wasi", "bindings"),
        default="wasi",
        help="build target of the generated config [default: wasi]",
    )
    return parser


def _init(directory: Path, target: str) -> int:
    try:
        report = scaffold_project(directory, target)
    except OSError as exc:
        print(f"ERROR: cannot scaffold {directory}: {exc}", file=sys.stderr)
        return 1
    for path in report.created:
        print(f"created  {path}")
    for path in report.skipped:
        print(f"skipped  {path} (exists; left unchanged)")
    print()
    print("next: npm install, then doit")
    return 0
