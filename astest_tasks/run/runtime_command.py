"""Which runtime runs a mode's specs: an in-process Python runner, the browser (web target), or
an external command.

``runOptions.runtime.cmd`` is read the way as-test reads it (AS-TEST-HOST.md §1.7): tokenized by
a small shell-like tokenizer, aligned to the mode's target when it names another target's stock
runner, and with ``<file>`` and ``<name>`` substituted per spec. What we add:

- no command at all means our in-process default runner, ``.as-test/runners/default.<target>.py``;
- a command whose script is a ``.py`` file (``python ./my-runner.py``, or the path alone) runs that
  runner in-process too: no new interpreter per spec;
- a web mode runs in Chromium, through this process's browser session (``web_runtime.py``);
- as-test's stock Node runner (``node ./.as-test/runners/default.<target>.js``) runs as it is when
  the file exists; when it does not, as-test would write its own default, and we use ours.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from astest_tasks.core.errors import UserError

RUNNERS_DIR = ".as-test/runners"
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?")
STOCK_NODE_RUNNER = "./.as-test/runners/default.{target}.js"
TARGETS = ("wasi", "bindings", "web")


def default_runner_path(target: str) -> str:
    """The in-process default runner of a target, relative to the project root."""
    return f"{RUNNERS_DIR}/default.{target}.py"


@dataclass(frozen=True)
class InProcessRuntime:
    """A Python runner script executed inside the run task's process."""

    runner: str  # relative to the project root, posix separators
    is_default: bool  # ours, rendered from a template when missing

    @property
    def description(self) -> str:
        return f"in-process runner {self.runner}"


@dataclass(frozen=True)
class ExternalRuntime:
    """A command run as a subprocess per spec, talking WIPC over its stdin and stdout."""

    command: str  # as configured, for messages and the cache key
    tokens: tuple[str, ...]  # tokenized, placeholders not yet substituted
    scripts: tuple[str, ...]  # tokens naming files in the project: inputs of the run

    @property
    def description(self) -> str:
        return f"external runtime `{self.command}`"

    def argv(self, wasm_path: str, spec_path: str) -> list[str]:
        return command_argv(self.tokens, wasm_path, spec_path)


@dataclass(frozen=True)
class BrowserRuntime:
    """The web target: each spec in a page of the Chromium that the run task's process keeps."""

    browser: str  # runOptions.runtime.browser, or BROWSER, which wins; "" = the default Chromium
    headful: bool  # as-test's stock web command without --headless asks for a window
    executable: str = ""  # the Chromium that `browser` found when the tasks were made

    @property
    def description(self) -> str:
        # Which executable runs the specs is in the cache key, so switching browsers re-runs
        # them; headful or headless does not change a result and stays out.
        return f"browser {self.browser or 'chromium'} ({self.executable or 'not found'})"


Runtime = InProcessRuntime | ExternalRuntime | BrowserRuntime


def command_argv(tokens: Sequence[str], wasm_path: str, spec_path: str) -> list[str]:
    """The argv for one spec: ``<file>`` is the artifact, ``<name>`` the spec's short name."""
    name = spec_short_name(spec_path)
    head, *rest = tokens
    return [head, *(t.replace("<file>", wasm_path).replace("<name>", name) for t in rest)]


def spec_short_name(spec_path: str) -> str:
    """as-test's ``<name>``: the basename without its first ``.ts``, then its first ``.spec``."""
    return posixpath.basename(spec_path).replace(".ts", "", 1).replace(".spec", "", 1)


def resolve_runtime(
    command: str, target: str, project_root: Path, field: str, browser: str = ""
) -> Runtime:
    """Decide how a mode's specs run; ``field`` names the config field in error messages."""
    if not command.strip():
        if target == "web":
            return BrowserRuntime(browser, headful=False)
        return InProcessRuntime(default_runner_path(target), is_default=True)
    tokens = tokenize_command(command, field)
    tokens = _align_stock_runner(tokens, target)
    script = _python_script(tokens)
    if script is not None and target == "web":
        raise UserError(
            f"{field}: web specs run in the browser, so the Python runner {script} cannot run "
            "them (runner scripts are for the wasi and bindings targets); fix: remove the "
            "command to use the browser, or change the mode's target"
        )
    if script is not None:
        default = script == default_runner_path(target)
        return InProcessRuntime(script, is_default=default)
    stock = STOCK_NODE_RUNNER.format(target=target)
    stock_is_missing = not (project_root / stock).is_file()
    is_stock = tokens[0] == "node" and len(tokens) >= 2 and tokens[1] == stock
    if is_stock and stock_is_missing and target == "web":
        # as-test opens a window unless told --headless; we keep its meaning.
        return BrowserRuntime(browser, headful="--headless" not in tokens[2:])
    if is_stock and stock_is_missing:
        # as-test would write its stock runner here; ours is the in-process equivalent.
        return InProcessRuntime(default_runner_path(target), is_default=True)
    # Every project file the command names is an input of its runs: the executable itself when
    # it is a path (`./run.sh <file>`), and the scripts it is given (`node ./runner.mjs <file>`).
    named = tokens if "/" in tokens[0] else tokens[1:]
    scripts = tuple(
        dict.fromkeys(
            _normalise(token)
            for token in named
            if "<" not in token
            and not token.startswith("-")
            and _is_project_file(project_root, token)
        )
    )
    return ExternalRuntime(command=command, tokens=tuple(tokens), scripts=scripts)


def tokenize_command(command: str, field: str) -> list[str]:
    """as-test's ``tokenizeCommand``: whitespace splits, '…' is literal, "…" allows \\ escapes."""
    tokens: list[str] = []
    current: list[str] = []
    has_token = False
    quote: str | None = None
    index = 0
    while index < len(command):
        char = command[index]
        if quote == "'":
            if char == "'":
                quote = None
            else:
                current.append(char)
        elif quote == '"':
            if char == '"':
                quote = None
            elif char == "\\" and index + 1 < len(command):
                index += 1
                current.append(command[index])
            else:
                current.append(char)
        elif char in "'\"":
            quote = char
            has_token = True
        elif char.isspace():
            if has_token:
                tokens.append("".join(current))
                current, has_token = [], False
        else:
            current.append(char)
            has_token = True
        index += 1
    if quote is not None:
        raise UserError(
            f"{field}: the command {command!r} has an unterminated {quote} quote; "
            "fix: close the quote"
        )
    if has_token:
        tokens.append("".join(current))
    if not tokens:
        raise UserError(f"{field}: the runtime command is empty; fix: remove it or name a command")
    return tokens


def _align_stock_runner(tokens: list[str], target: str) -> list[str]:
    """as-test's ``alignDefaultRuntimeToTarget``: another target's stock runner means this one's."""
    if len(tokens) >= 2 and tokens[0] == "node":
        for other in TARGETS:
            if tokens[1] in (STOCK_NODE_RUNNER.format(target=other), _stock_variant(other)):
                return [tokens[0], STOCK_NODE_RUNNER.format(target=target), *tokens[2:]]
    return tokens


def _stock_variant(target: str) -> str:
    # `ast init` writes the path without the leading "./" (".as-test/runners/default.wasi.js").
    return STOCK_NODE_RUNNER.format(target=target).removeprefix("./")


def _python_script(tokens: list[str]) -> str | None:
    """The runner a Python command names: ``x.py``, or ``python [flags] x.py`` with any Python
    (``python3``, ``/venv/bin/python3.12``); it runs in doit's own interpreter instead."""
    if tokens[0].endswith(".py"):
        return _normalise(tokens[0])
    if _PYTHON.fullmatch(posixpath.basename(tokens[0])):
        for token in tokens[1:]:
            if token.endswith(".py"):
                return _normalise(token)
            if not token.startswith("-"):
                return None  # `python -m module`, `python script` without .py: external
    return None


def _is_project_file(project_root: Path, token: str) -> bool:
    path = Path(token)
    if path.is_absolute():
        return False  # outside the project (an interpreter, a system tool): not our input
    return (project_root / path).is_file()


def _normalise(path: str) -> str:
    return posixpath.normpath(path.replace("\\", "/"))
