"""Every flag a user-facing message names exists: a hint that sends users to a flag we do not
take (as "re-run with --create-snapshots" did before we took it) fails here.

The messages are the prose string literals (those with a space: not the argv words we pass to
asc, git, Node or a browser) of each call, return and assignment in the package that name a
``--flag``: every ``fix:`` hint, and every warning or note such as "Run with --show-coverage=all".
Docstrings and comments are not shown to users and are left out. Each flag must be an option of
the astest task (``plan/options.py``), a flag of the ``astest`` command (its own parser, its
``--watch`` and the as-test 1.8 spellings it rewrites), an option of doit's ``run`` (which both
``astest`` and ``doit astest`` take), or another tool's flag in the phrase that names that tool.
"""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator
from pathlib import Path

from doit.cmd_base import DoitCmdBase
from doit.cmd_run import Run

from astest_tasks.cli import _parser
from astest_tasks.commands import as_test_flags
from astest_tasks.commands.watch import WATCH_FLAG
from astest_tasks.plan.options import OPTIONS

PACKAGE = Path(__file__).resolve().parents[1] / "astest_tasks"
# camelCase too, so asc's --exportRuntime is read whole, not as a made-up --export, and
# snake_case, so bazel-remote's --max_size is not read as --max.
FLAG = re.compile(r"(?<![\w-])--[A-Za-z][A-Za-z0-9_-]*")
# Another tool's flag is right only in the phrase that sends the user to that tool.
OTHER_TOOLS = {
    "--save-dev": "npm install --save-dev",
    "--optimize": '"args": ["--optimize"]',  # asc's, in a config's buildOptions.args
    "--exportRuntime": "build with --exportRuntime",  # asc's
    "--use": "built with --use",  # asc's
    "--max_size": "bazel-remote --max_size",  # a server's flags, in astest doctor's fixes
    "--disable_http_ac_validation": "bazel-remote with --disable_http_ac_validation",
    "--bindings": '(`"--bindings raw"` is two)',  # asc's, in the docs row of buildOptions.args
}


def messages() -> Iterator[tuple[str, str, list[str]]]:
    """(where, the node's whole text, its prose parts that name a flag) of each message; a call
    inside a return is one message, read whole from the outer node (``ast.walk`` meets it first)."""
    seen: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call | ast.Return | ast.Assign | ast.AnnAssign):
                continue
            parts = [
                part.value
                for part in ast.walk(node)
                if isinstance(part, ast.Constant) and isinstance(part.value, str)
            ]
            prose = [part for part in parts if " " in part.strip() and FLAG.search(part)]
            where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
            if prose and where not in seen:
                seen.add(where)
                yield where, " ".join(parts), prose


def command_flags(parser: argparse.ArgumentParser) -> set[str]:
    flags: set[str] = set()
    for action in parser._actions:
        flags.update(option for option in action.option_strings if option.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                flags |= command_flags(sub)
    return flags


def taken_flags() -> set[str]:
    taken = {f"--{option.long}" for option in OPTIONS} | command_flags(_parser())
    taken |= {WATCH_FLAG} | set(as_test_flags.RENAMED) | as_test_flags.ALWAYS_SO
    taken |= as_test_flags.JOB_COUNTS | as_test_flags.PARALLEL
    doit_run = [*Run.cmd_options, *DoitCmdBase.base_options]
    return taken | {f"--{option['long']}" for option in doit_run if option.get("long")}


def wrong_flags(found: list[tuple[str, str, list[str]]], taken: set[str]) -> list[str]:
    wrong = []
    for where, text, prose in found:
        for flag in sorted({flag for part in prose for flag in FLAG.findall(part)}):
            if flag in taken or (flag in OTHER_TOOLS and OTHER_TOOLS[flag] in text):
                continue
            wrong.append(f"{where}: {flag} in {text!r}")
    return wrong


def test_every_flag_a_message_names_is_one_we_take() -> None:
    found = list(messages())
    named = {flag for _, _, prose in found for part in prose for flag in FLAG.findall(part)}
    # The scan reaches fix: hints, plain notes and other tools' phrases alike.
    assert {"--create-snapshots", "--update-snapshots", "--shard", "--show-coverage"} <= named
    assert {"--save-dev", "--exportRuntime"} <= named
    wrong = wrong_flags(found, taken_flags())
    assert not wrong, "messages name flags that do not exist:\n" + "\n".join(wrong)


def test_a_flag_we_do_not_take_is_caught() -> None:
    """What the suite said before we took --create-snapshots: both snapshot hints fail."""
    found = list(messages())
    without = taken_flags() - {"--create-snapshots"}
    caught = [line for line in wrong_flags(found, without) if "--create-snapshots in" in line]
    hints = [line for line in caught if line.startswith("astest_tasks/model/snapshots.py:")]
    assert len(hints) == 2, caught
    # Another tool's flag outside its phrase is wrong too.
    assert wrong_flags([("x.py:1", "run with --save-dev", ["run with --save-dev"])], without)
