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

Each of those is a ``runtime.Runtime`` that claims the commands it runs (``Runtime.claim``); this
module reads the command into a ``RuntimeRequest`` and the registry (``runtime_registry.py``)
finds the one runtime that claims it. A new runtime is a module of its own and its entry there.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from astest_tasks.core.errors import UserError
from astest_tasks.core.lazy_pattern import LazyPattern
from astest_tasks.core.setup_checks import Check, Level
from astest_tasks.run.runtime import Runtime
from astest_tasks.run.runtime_registry import claimed_runtime
from astest_tasks.run.runtime_request import RuntimeRequest, normalise_path

_PYTHON = LazyPattern(r"python(\d+(\.\d+)?)?")
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
    request = runtime_request(command, target, project_root, field, browser, headful, locate)
    return claimed_runtime(request)


def runtime_checks(
    command: str, target: str, project_root: Path, field: str, browser: str, scope: str
) -> list[Check]:
    """What ``astest doctor`` reports of a mode's runtime: the checks of the runtime that claims
    its command (each runtime its own), or why none can run it, with the fix."""
    try:
        runtime = resolve_runtime(command, target, project_root, field, browser)
    except UserError as exc:
        detail, _, fix = str(exc).partition("; fix: ")
        return [Check(Level.ERROR, scope, detail, fix)]
    return runtime.doctor_checks(project_root, scope)


def runtime_request(
    command: str,
    target: str,
    project_root: Path,
    field: str,
    browser: str,
    headful: bool,
    locate: bool,
) -> RuntimeRequest:
    """The command read as as-test reads it, with what each runtime's claim asks of it."""
    tokens: list[str] = []
    if command.strip():
        tokens = _align_stock_runner(tokenize_command(command, field), target)
    stock = STOCK_NODE_RUNNER.format(target=target)
    names_stock = len(tokens) >= 2 and tokens[0] == "node" and tokens[1] == stock
    return RuntimeRequest(
        command=command,
        tokens=tuple(tokens),
        target=target,
        project_root=project_root,
        field=field,
        python_script=_python_script(tokens) if tokens else None,
        names_missing_stock_runner=names_stock and not (project_root / stock).is_file(),
        browser=browser,
        headful=headful,
        locate=locate,
    )


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
        return normalise_path(tokens[0])
    if _PYTHON.fullmatch(posixpath.basename(tokens[0])):
        for token in tokens[1:]:
            if token.endswith(".py"):
                return normalise_path(token)
            if not token.startswith("-"):
                return None  # `python -m module`, `python script` without .py: external
    return None
