"""``astest doctor``'s report: every check of a project's setup, in order, one line each.

It covers what as-test 1.8's ``ast doctor`` checks (the config loads; Node's version; the npm
packages; per mode the runtime, its executable or script, and the specs its input matches) and
what only this product needs: which as-test rules the config is read with, whether the installed
versions are ones we test (and the as-test 1.0.x + assemblyscript >= 0.28.17 trap), the default
runners, the browser for web modes, and doit's state backend. It reads and never writes.

Each part of the setup is checked where it is known: the config and the toolchain in
``config/config_checks.py`` and ``config/toolchain_checks.py``, ``dodo.py`` in
``config/dodo_backend.py``, a mode's runtime by the runtime that claims its command
(``run/runtime_command.runtime_checks``, each runtime its own ``doctor_checks``). Here they are
gathered and printed, for the ``astest doctor`` command (``commands/doctor.py``) and the
``astest:doctor`` task (``tasks/doctor.py``) alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from astest_tasks.config.as_test_version import AsTestVersion
from astest_tasks.config.config_checks import check_config, input_check, selected_modes
from astest_tasks.config.dodo_backend import doit_backend_check
from astest_tasks.config.project_config import ModeSettings, ProjectConfig
from astest_tasks.config.toolchain import AS_TEST, find_package
from astest_tasks.config.toolchain_checks import node_checks, package_checks
from astest_tasks.core.guest_text import for_stream
from astest_tasks.core.setup_checks import Check, Level
from astest_tasks.output.ansi import Fore, Style
from astest_tasks.output.terminal import Palette, use_colour
from astest_tasks.run.runtime_command import runtime_checks


def diagnose(project_root: Path, config_path: str, requested_modes: Sequence[str]) -> list[Check]:
    checks: list[Check] = []
    as_test = find_package(project_root, AS_TEST)
    version = AsTestVersion.parse(as_test.version) if as_test else None
    config = check_config(project_root, config_path, version, checks)
    checks.extend(node_checks(version))
    modes = selected_modes(config, requested_modes, checks) if config else []
    checks.extend(package_checks(project_root, as_test, version, modes))
    for mode in modes:
        assert config is not None  # modes come from a config
        checks.extend(_mode_checks(project_root, config_path, config, mode))
    checks.append(doit_backend_check(project_root))
    return checks


def run_doctor(
    project_root: Path,
    config_path: str,
    requested_modes: Sequence[str],
    stream: TextIO,
    more: Sequence[Check] = (),
) -> int:
    """Print every check (``more``: those of stages above this one, the remote cache's); 1 when
    any is an ERROR, else 0."""
    checks = [*diagnose(project_root, config_path, requested_modes), *more]
    stream.write(for_stream(render(checks, Palette(use_colour(stream))), stream))
    return 1 if any(check.level is Level.ERROR for check in checks) else 0


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


def _mode_checks(
    project_root: Path, config_path: str, config: ProjectConfig, mode: ModeSettings
) -> list[Check]:
    scope = f"mode {mode.name}"
    field = f"{config_path}: runOptions.runtime.cmd"
    return [
        Check(Level.OK, scope, f"target {mode.target}, output {mode.out_dir}"),
        *runtime_checks(mode.runtime_cmd, mode.target, project_root, field, mode.browser, scope),
        input_check(project_root, config_path, config, mode, scope),
    ]
