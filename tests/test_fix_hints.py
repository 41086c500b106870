"""Every flag a user-facing hint names exists: a ``fix:`` that sends users to a flag we do not
take (as "re-run with --create-snapshots" did before we took it) fails here.

The hints are the string literals of each call, return and assignment in the package whose text
says ``fix:``; their ``--flags`` must be options of the astest task (``tasks/options.py``), flags
of the ``astest`` command, or one of the other tools' flags listed below with the tool.
"""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator
from pathlib import Path

from astest_tasks.cli import _parser
from astest_tasks.commands.watch import WATCH_FLAG
from astest_tasks.tasks.options import OPTIONS

PACKAGE = Path(__file__).resolve().parents[1] / "astest_tasks"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
OTHER_TOOLS = {
    "--save-dev": "npm install --save-dev, in hints that install a package",
}


def hints() -> Iterator[tuple[str, str]]:
    """(where, text) of each hint in the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call | ast.Return | ast.Assign):
                continue
            text = " ".join(
                part.value
                for part in ast.walk(node)
                if isinstance(part, ast.Constant) and isinstance(part.value, str)
            )
            if "fix:" in text:
                yield f"{path.relative_to(PACKAGE.parent)}:{node.lineno}", text


def command_flags(parser: argparse.ArgumentParser) -> set[str]:
    flags: set[str] = set()
    for action in parser._actions:
        flags.update(option for option in action.option_strings if option.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                flags |= command_flags(sub)
    return flags


def test_every_flag_a_fix_names_is_one_we_take() -> None:
    taken = {f"--{option.long}" for option in OPTIONS} | command_flags(_parser())
    taken |= {WATCH_FLAG} | set(OTHER_TOOLS)
    found = list(hints())
    named = {flag for _, text in found for flag in FLAG.findall(text)}
    assert {"--update-snapshots", "--create-snapshots", "--shard"} <= named  # the scan works
    wrong = sorted(
        f"{where}: {flag}"
        for where, text in found
        for flag in FLAG.findall(text)
        if flag not in taken
    )
    assert not wrong, "hints name flags that do not exist:\n" + "\n".join(wrong)
