"""A reader of GitHub Actions workflow commands, written from GitHub's documented grammar
(``::command key=value,key=value::message``, docs "Workflow commands for GitHub Actions") as the
runner itself reads a line: ``ActionCommand.TryParseV2`` in actions/runner
(src/Runner.Common/ActionCommand.cs). The tests read our output with it, as the runner would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

COMMANDS = frozenset({"error", "warning", "notice", "debug", "group", "endgroup"})
# UnescapeProperty / UnescapeData: the replacements in the runner's order, %25 last.
_PROPERTY_ESCAPES = (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%"))
_DATA_ESCAPES = (("%0D", "\r"), ("%0A", "\n"), ("%25", "%"))


@dataclass(frozen=True)
class WorkflowCommand:
    name: str
    properties: dict[str, str]
    data: str


def _unescape(text: str, escapes: tuple[tuple[str, str], ...]) -> str:
    for escaped, character in escapes:
        text = text.replace(escaped, character)
    return text


def parse_command(line: str) -> WorkflowCommand | None:
    """The command a log line carries, None for any other line."""
    message = line.lstrip()
    if not message.startswith("::"):
        return None
    end = message.find("::", 2)
    if end < 0:
        return None
    info = message[2:end]
    name, space, rest = info.partition(" ")
    if name not in COMMANDS:
        return None
    properties: dict[str, str] = {}
    if space:
        for entry in rest.strip().split(","):
            key, equals, value = entry.partition("=")
            if entry and key and equals and value:  # RemoveEmptyEntries: "k=" is no pair
                properties[key.lower()] = _unescape(value, _PROPERTY_ESCAPES)
    return WorkflowCommand(name, properties, _unescape(message[end + 2 :], _DATA_ESCAPES))


def commands_in(text: str) -> list[WorkflowCommand]:
    return [command for line in text.splitlines() if (command := parse_command(line))]


# As the runner reads a step's output (actions/runner, ActionCommandManager.TryProcessCommand):
# it splits the output into lines at "\r\n", "\r" and "\n"; a line is a command if, trimmed of
# whitespace, it starts with "::name" followed by "::" (ActionCommand.TryParseV2), or else if it
# holds "##[name" followed somewhere by "]" (the older ActionCommand.TryParse, anywhere in the
# line). The runner acts only on the names it registered; this reader counts any name, so a test
# that finds none finds none the runner would act on, whichever commands it knows.
_RUNNER_LINE_BREAK = re.compile(r"\r\n|\r|\n")
LEGACY_PREFIX = "##["


@dataclass(frozen=True)
class RunnerCommand:
    form: str  # "::" or "##["
    name: str
    line: str  # the whole line, as the runner split it


def runner_lines(text: str) -> list[str]:
    return _RUNNER_LINE_BREAK.split(text)


def runner_command(line: str) -> RunnerCommand | None:
    """The command the runner would find in one line of output, None for a plain line."""
    message = line.strip()
    if message.startswith("::"):
        end = message.find("::", 2)
        name = message[2:end].split(" ", 1)[0] if end >= 0 else ""
        if name:
            return RunnerCommand("::", name, line)
    start = line.find(LEGACY_PREFIX)
    if start < 0:
        return None
    bracket = line.find("]", start)
    if bracket < 0:
        return None
    space = line.find(" ", start)
    end = bracket if space < 0 else min(space, bracket)
    name = line[start + len(LEGACY_PREFIX) : end]
    return RunnerCommand(LEGACY_PREFIX, name, line) if name else None


def runner_commands(text: str) -> list[RunnerCommand]:
    """Every command a GitHub Actions runner would find in ``text``, in order."""
    return [command for line in runner_lines(text) if (command := runner_command(line))]
