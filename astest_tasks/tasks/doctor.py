"""``astest doctor``: check a project's setup, one line per check, each problem with its fix.

It covers what as-test 1.8's ``ast doctor`` checks (the config loads; Node's version; the npm
packages; per mode the runtime, its executable or script, and the specs its input matches) and
what only this product needs: which as-test rules the config is read with, whether the installed
versions are ones we test (and the as-test 1.0.x + assemblyscript >= 0.28.17 trap), the default
runners, the browser for web modes, and doit's state backend. It reads and never writes.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from colorama import Fore, Style

from astest_tasks.config.as_test_version import AsTestVersion, untested_version_warning
from astest_tasks.config.mode_specs import specs_of_mode
from astest_tasks.config.project_config import (
    ModeSettings,
    ProjectConfig,
    load_config,
    select_modes,
)
from astest_tasks.config.toolchain import (
    AS_TEST,
    ASSEMBLYSCRIPT,
    MIN_NODE_MAJOR,
    PINNED_VERSIONS,
    WASI_SHIM,
    Package,
    find_package,
    version_combination_warning,
)
from astest_tasks.core.errors import UserError
from astest_tasks.core.setup_checks import Check, Level
from astest_tasks.output.terminal import Palette, output_stream, use_colour
from astest_tasks.run.runtime_command import resolve_runtime
from astest_tasks.tasks.doit_argv import default_tasks, doit_command, names_tasks_under

# assemblyscript releases each as-test generation is known to work with (docs/design/index.md).
_ASC_FOR_1_0 = ((0, 28, 9), (0, 28, 14))
_ASC_FIRST_FOR_1_8 = (0, 28, 17)
_NODE_FOR_1_8 = 20  # as-test 1.8's package.json: "engines": {"node": ">=20"}


def diagnose(project_root: Path, config_path: str, requested_modes: Sequence[str]) -> list[Check]:
    checks: list[Check] = []
    as_test = find_package(project_root, AS_TEST)
    version = AsTestVersion.parse(as_test.version) if as_test else None
    config = _check_config(project_root, config_path, version, checks)
    checks.extend(_check_node(version))
    modes = _selected_modes(config, requested_modes, checks) if config else []
    checks.extend(_check_packages(project_root, as_test, version, modes))
    for mode in modes:
        assert config is not None  # modes come from a config
        checks.extend(_check_mode(project_root, config_path, config, mode))
    checks.append(_check_doit_backend(project_root))
    return checks


def run_doctor(
    project_root: Path, config_path: str, requested_modes: Sequence[str], stream: TextIO
) -> int:
    """Print every check; 1 when any is an ERROR, else 0."""
    checks = diagnose(project_root, config_path, requested_modes)
    stream.write(render(checks, Palette(use_colour(stream))))
    return 1 if any(check.level is Level.ERROR for check in checks) else 0


def doctor_action(project_root: str, config_path: str, modes: list[str]) -> bool:
    """The ``astest:doctor`` task's action: doit fails the task when it returns False."""
    return run_doctor(Path(project_root), config_path, modes, output_stream()) == 0


def doctor_task_wanted(arguments: Sequence[str], basename: str) -> bool:
    """``<basename>:doctor`` exists for doit's listing commands and when named (also through
    the dodo's ``default_tasks``), so that a plain ``doit`` never runs it."""
    name = f"{basename}:doctor"
    if doit_command(arguments) != "run":
        return True
    return names_tasks_under(arguments, name, name) or name in default_tasks(arguments)


def doctor_task(
    project_root: Path, config_path: str, modes: list[str], basename: str
) -> dict[str, Any]:
    return {
        "basename": basename,
        "name": "doctor",
        "doc": "check the project's setup (astest doctor): config, Node.js, packages, runtimes",
        "actions": [(doctor_action, [str(project_root), config_path, modes])],
        "uptodate": [False],  # a check of the machine as it is now: never cached
        "verbosity": 2,
    }


def render(checks: Sequence[Check], palette: Palette) -> str:
    colours = {Level.OK: Fore.GREEN, Level.WARN: Fore.YELLOW, Level.ERROR: Fore.RED}
    scope_width = max((len(check.scope) for check in checks), default=0)
    lines = []
    for check in checks:
        level = palette.paint(f"{check.level.value:<5}", colours[check.level], Style.BRIGHT)
        lines.append(f"{level}  {check.scope:<{scope_width}}  {check.detail}")
        if check.fix:
            lines.append(f"{'':5}  {'':<{scope_width}}  fix: {check.fix}")
    errors = sum(check.level is Level.ERROR for check in checks)
    warnings = sum(check.level is Level.WARN for check in checks)
    lines.append("")
    lines.append(f"doctor: {errors} error(s), {warnings} warning(s), {len(checks)} check(s)")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------


def _check_config(
    project_root: Path, config_path: str, version: AsTestVersion | None, checks: list[Check]
) -> ProjectConfig | None:
    rules = f"as-test {version} rules" if version else "as-test not installed"
    try:
        config = load_config(project_root / config_path, project_root)
    except UserError as exc:
        message = str(exc)
        detail, _, fix = message.partition("; fix: ")
        checks.append(Check(Level.ERROR, "config", detail, fix or "correct the config file"))
        return None
    if not config.exists:
        checks.append(
            Check(
                Level.WARN,
                "config",
                f"{config_path} not found: as-test's defaults are used ({rules})",
                "create one with `astest init`, or name yours with --config",
            )
        )
    else:
        checks.append(Check(Level.OK, "config", f"{config_path} loads ({rules})"))
    checks.extend(Check(Level.WARN, "config", warning) for warning in config.warnings)
    return config


def _selected_modes(
    config: ProjectConfig, requested: Sequence[str], checks: list[Check]
) -> list[ModeSettings]:
    try:
        modes = select_modes(config, requested)
    except UserError as exc:
        detail, _, fix = str(exc).partition("; fix: ")
        checks.append(Check(Level.ERROR, "config", detail, fix))
        return []
    if not modes:
        checks.append(
            Check(
                Level.ERROR,
                "config",
                'every mode has "default": false, so a plain run selects none',
                "choose modes with --mode NAME, or set one mode's default to true",
            )
        )
    return modes


def _check_node(version: AsTestVersion | None) -> list[Check]:
    node = shutil.which("node")
    if node is None:
        return [
            Check(
                Level.ERROR,
                "node",
                "Node.js was not found on PATH (the AssemblyScript compiler runs on it)",
                f"install Node.js {MIN_NODE_MAJOR} or newer and put `node` on PATH",
            )
        ]
    try:
        output = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return [Check(Level.ERROR, "node", f"{node} --version failed: {exc}", "reinstall Node.js")]
    match = re.match(r"v?(\d+)\.", output)
    major = int(match.group(1)) if match else None
    if major is not None and major < MIN_NODE_MAJOR:
        return [
            Check(
                Level.ERROR,
                "node",
                f"Node.js {output} at {node} is too old for the AssemblyScript compiler",
                f"install Node.js {MIN_NODE_MAJOR} or newer and put it first on PATH",
            )
        ]
    if major is not None and major < _NODE_FOR_1_8 and version and version.at_least("1.8.0"):
        return [
            Check(
                Level.WARN,
                "node",
                f"Node.js {output}: as-test {version} asks for Node.js {_NODE_FOR_1_8} or newer",
                f"install Node.js {_NODE_FOR_1_8} or newer",
            )
        ]
    return [Check(Level.OK, "node", f"Node.js {output} ({node})")]


def _check_packages(
    project_root: Path,
    as_test: Package | None,
    version: AsTestVersion | None,
    modes: Sequence[ModeSettings],
) -> list[Check]:
    checks = [_package_check(project_root, AS_TEST, as_test)]
    if as_test and version:
        warning = untested_version_warning(version)
        checks.append(
            Check(Level.WARN, "npm", warning)
            if warning
            else Check(
                Level.OK, "npm", f"as-test {version} is a version astest-tasks is tested with"
            )
        )
    asc = find_package(project_root, ASSEMBLYSCRIPT)
    checks.append(_package_check(project_root, ASSEMBLYSCRIPT, asc))
    if asc and as_test and version:
        checks.append(_compiler_check(version, asc.version, as_test.version))
    if any(mode.target == "wasi" for mode in modes):
        checks.append(
            _package_check(project_root, WASI_SHIM, find_package(project_root, WASI_SHIM))
        )
    return checks


def _package_check(project_root: Path, name: str, package: Package | None) -> Check:
    if package is None:
        pinned = PINNED_VERSIONS.get(name)
        spec = f"{name}@{pinned}" if pinned else name
        return Check(
            Level.ERROR,
            "npm",
            f"{name} is not installed (no node_modules/{name} in {project_root} or above)",
            f"run `npm install --save-dev {spec}` in the project (or `npm ci` when package.json "
            "already lists it)",
        )
    return Check(Level.OK, "npm", f"{name} {package.version} ({package.root})")


def _compiler_check(version: AsTestVersion, asc_version: str, as_test_text: str) -> Check:
    asc = AsTestVersion.parse(asc_version).parts
    trap = version_combination_warning(as_test_text, asc_version)
    if trap:
        detail, _, fix = trap.partition("; fix: ")
        return Check(Level.WARN, "npm", detail, fix)
    if version.at_least("1.1.0") and asc < _ASC_FIRST_FOR_1_8:
        return Check(
            Level.ERROR,
            "npm",
            f"as-test {version} needs assemblyscript 0.28.17 or newer; {asc_version} is installed",
            "run `npm install --save-dev assemblyscript@0.28.20`",
        )
    tested = not version.at_least("1.1.0") and _ASC_FOR_1_0[0] <= asc <= _ASC_FOR_1_0[1]
    tested = tested or (version.at_least("1.1.0") and asc >= _ASC_FIRST_FOR_1_8)
    if not tested:
        return Check(
            Level.WARN,
            "npm",
            f"assemblyscript {asc_version} with as-test {version} is a combination astest-tasks "
            "has not been tested with",
            "use assemblyscript 0.28.14 with as-test 1.0.x, or 0.28.20 with as-test 1.8",
        )
    return Check(Level.OK, "npm", f"assemblyscript {asc_version} works with as-test {version}")


def _check_mode(
    project_root: Path, config_path: str, config: ProjectConfig, mode: ModeSettings
) -> list[Check]:
    scope = f"mode {mode.name}"
    checks = [Check(Level.OK, scope, f"target {mode.target}, output {mode.out_dir}")]
    field = f"{config_path}: runOptions.runtime.cmd"
    try:
        runtime = resolve_runtime(mode.runtime_cmd, mode.target, project_root, field, mode.browser)
    except UserError as exc:
        detail, _, fix = str(exc).partition("; fix: ")
        checks.append(Check(Level.ERROR, scope, detail, fix))
        runtime = None
    if runtime is not None:
        checks.extend(runtime.doctor_checks(project_root, scope))  # each runtime its own
    found = specs_of_mode(project_root, config, mode)
    patterns = ", ".join(
        config.base.input_patterns if config.rules.modes_are_full_configs else mode.input_patterns
    )
    if found.specs or found.excluded:
        left_out = f', {len(found.excluded)} left out by this mode\'s "!" patterns'
        counted = f"matches {len(found.specs)} spec(s){left_out if found.excluded else ''}"
        checks.append(Check(Level.OK, scope, f"input {patterns} {counted}"))
    else:
        checks.append(
            Check(
                Level.WARN,
                scope,
                f"input {patterns} matches no spec file",
                f'correct "input" in {config_path} (paths are from the project folder), or add '
                "*.spec.ts files there",
            )
        )
    return checks


def _check_doit_backend(project_root: Path) -> Check:
    dodo = project_root / "dodo.py"
    if not dodo.is_file():
        return Check(Level.OK, "doit", "no dodo.py: the astest command keeps its state in sqlite3")
    backend = _declared_backend(dodo)
    if backend == "sqlite3":
        return Check(Level.OK, "doit", "dodo.py uses the sqlite3 backend")
    said = f'"{backend}"' if backend else "doit's default (dbm, which is dbm.dumb on this Python)"
    return Check(
        Level.WARN,
        "doit",
        f"dodo.py's state backend is {said}: it can lose records when two doit processes write "
        "at once",
        'set DOIT_CONFIG = {"backend": "sqlite3", ...} in dodo.py',
    )


def _declared_backend(dodo: Path) -> str | None:
    """The ``backend`` of a literal ``DOIT_CONFIG = {...}`` in the dodo file, read without
    running it (a dodo may do anything when imported)."""
    try:
        tree = ast.parse(dodo.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if not isinstance(node, ast.Assign | ast.AnnAssign):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if not any(isinstance(t, ast.Name) and t.id == "DOIT_CONFIG" for t in targets):
            continue
        if isinstance(node.value, ast.Dict):
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == "backend"
                    and isinstance(value, ast.Constant)
                ):
                    return str(value.value)
    return None
