"""Which runtime runs a mode's specs: the choice, made once per mode when the tasks are made.

``runOptions.runtime.cmd`` is read the way as-test reads it (docs/design/host-contract.md §1.7):
tokenized by a small shell-like tokenizer, aligned to the mode's target when it names another
target's stock runner, and with ``<file>`` and ``<name>`` substituted per spec. What we add:

- no command at all means our in-process default runner, ``.as-test/runners/default.<target>.py``
  (``default_runtime.py``);
- a command whose script is a ``.py`` file (``python ./my-runner.py``, or the path alone) runs that
  runner in-process too: no new interpreter per spec (``inprocess_runtime.py``);
- a web mode runs in Chromium, through this process's browser session (``web_runtime.py``);
- as-test's stock Node runner (``node ./.as-test/runners/default.<target>.js``) runs as it is when
  the file exists (``external_runtime.py``); when it does not, as-test would write its own default,
  and we use ours.

Each runtime is a ``runtime.Runtime``; a new one is a module of its own and a line here.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from astest_tasks.core.errors import UserError
from astest_tasks.run.default_runtime import DefaultRuntime
from astest_tasks.run.external_runtime import ExternalRuntime
from astest_tasks.run.inprocess_runtime import InProcessRuntime
from astest_tasks.run.runner_files import default_runner_path
from astest_tasks.run.runtime import Runtime
from astest_tasks.run.web_runtime import BrowserRuntime

_PYTHON = re.compile(r"python(\d+(\.\d+)?)?")
STOCK_NODE_RUNNER = "./.as-test/runners/default.{target}.js"
TARGETS = ("wasi", "bindings", "web")


def resolve_runtime(
    command: str,
    target: str,
    project_root: Path,
    field: str,
    browser: str = "",
    *,
    headful: bool = False,
    locate: bool = False,
) -> Runtime:
    """Decide how a mode's specs run; ``field`` names the config field in error messages.

    ``browser`` and ``headful`` are what was asked of a web mode's browser (``--headful``);
    ``locate`` finds its executable now, as the run tasks need it (their key names it).
    """
    runtime = _choose(command, target, project_root, field, browser, headful)
    if locate and isinstance(runtime, BrowserRuntime):
        return runtime.located()
    return runtime


# Every runtime a mode can get: the ones _choose returns. Each declares its own doctor checks
# (Runtime.doctor_checks); tests/run/test_runtime_command.py fails on a runtime class of run/
# that is missing here or has no checks of its own.
RUNTIMES: tuple[type[Runtime], ...] = (
    DefaultRuntime,
    InProcessRuntime,
    ExternalRuntime,
    BrowserRuntime,
)


def _choose(
    command: str, target: str, project_root: Path, field: str, browser: str, headful: bool
) -> Runtime:
    if not command.strip():
        if target == "web":
            return BrowserRuntime(browser, headful=headful)
        return DefaultRuntime(target)
    tokens = tokenize_command(command, field)
    tokens = _align_stock_runner(tokens, target)
    script = _python_script(tokens)
    if script is not None and target == "web":
        raise UserError(
            f"{field}: web specs run in the browser, so the Python runner {script} cannot run "
            "them (runner scripts are for the wasi and bindings targets); fix: remove the "
            "command to use the browser, or change the mode's target"
        )
    if script == default_runner_path(target):
        return DefaultRuntime(target)
    if script is not None:
        return InProcessRuntime(script)
    stock = STOCK_NODE_RUNNER.format(target=target)
    stock_is_missing = not (project_root / stock).is_file()
    is_stock = tokens[0] == "node" and len(tokens) >= 2 and tokens[1] == stock
    if is_stock and stock_is_missing and target == "web":
        # as-test opens a window unless told --headless; we keep its meaning.
        return BrowserRuntime(browser, headful=headful or "--headless" not in tokens[2:])
    if is_stock and stock_is_missing:
        # as-test would write its stock runner here; ours is the in-process equivalent.
        return DefaultRuntime(target)
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
