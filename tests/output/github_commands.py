"""A reader of GitHub Actions workflow commands, written from GitHub's documented grammar
(``::command key=value,key=value::message``, docs "Workflow commands for GitHub Actions") as the
runner itself reads a line: ``ActionCommand.TryParseV2`` in actions/runner
(src/Runner.Common/ActionCommand.cs). The tests read our output with it, as the runner would.
"""

from __future__ import annotations

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
