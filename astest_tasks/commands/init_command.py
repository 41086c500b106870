"""``astest init``'s options, as as-test 1.8's ``init`` has them, and what they run: choose the
npm pins (init_pins.py), scaffold (scaffold.py), say what was written, and ``npm install`` when
asked."""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from astest_tasks.commands.init_pins import pins_from_registry
from astest_tasks.commands.scaffold import InitChoices, scaffold_project
from astest_tasks.core.errors import UserError


def run_init(args: argparse.Namespace) -> int:
    if args.directory and args.dir and Path(args.directory) != Path(args.dir):
        print(
            f"ERROR: init got two folders, {args.directory} and --dir {args.dir}; fix: give one",
            file=sys.stderr,
        )
        return 3
    directory = Path(args.directory or args.dir or ".")
    try:
        coverage = init_features(args.enable, args.disable)
    except UserError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 3
    pins = pins_from_registry()
    print(pins.note)
    choices = InitChoices(args.target, args.example, coverage, args.force, pins)
    try:
        report = scaffold_project(directory, choices)
    except OSError as exc:
        print(f"ERROR: cannot scaffold {directory}: {exc}", file=sys.stderr)
        return 1
    for path in report.created:
        print(f"created  {path}")
    for path in report.replaced:
        print(f"replaced {path} (--force)")
    for path in report.skipped:
        print(f"skipped  {path} (exists; left unchanged)")
    print()
    if args.install:
        return _npm_install(directory)
    print(f"next: {next_steps(directory)}")
    return 0


def _npm_install(directory: Path) -> int:
    npm = shutil.which("npm")
    if npm is None:
        print("ERROR: --install needs npm on PATH; fix: install Node.js with npm", file=sys.stderr)
        return 1
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=directory, check=False)
    if done.returncode != 0:
        print(f"ERROR: npm install failed in {directory} (exit {done.returncode})", file=sys.stderr)
        return 1
    print(f"next: {next_steps(directory).replace('npm install, then ', '')}")
    return 0


def init_features(enable: str, disable: str) -> bool:
    """Whether init turns coverage on; other as-test 1.8 init features are refused with a fix."""
    wanted = {name.strip() for name in enable.split(",") if name.strip()}
    unwanted = {name.strip() for name in disable.split(",") if name.strip()}
    for name in sorted(wanted | unwanted):
        if name == "try-as":
            raise UserError(
                "astest init does not set up try-as yet; fix: init without it, then add "
                '"features": ["try-as"] (as-test 1.3+) and `npm install --save-dev try-as`'
            )
        if name != "coverage":
            raise UserError(f"unknown init feature {name!r}; fix: use coverage (or try-as)")
    return "coverage" in wanted - unwanted


def next_steps(directory: Path) -> str:
    """What to type after ``astest init DIR``: into the project first, unless already there."""
    steps = "npm install, then doit"
    if directory.resolve() == Path.cwd().resolve():
        return steps
    return f"cd {shlex.quote(str(directory))}, {steps}"
