"""What ``astest doctor`` checks of the config: it loads (and with which as-test rules), it
selects modes, and each mode's ``input`` matches spec files. Each finding names its fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from astest_tasks.config.as_test_version import AsTestVersion
from astest_tasks.config.mode_specs import specs_of_mode
from astest_tasks.config.project_config import (
    ModeSettings,
    ProjectConfig,
    load_config,
    select_modes,
)
from astest_tasks.core.errors import UserError
from astest_tasks.core.setup_checks import Check, Level


def check_config(
    project_root: Path, config_path: str, version: AsTestVersion | None, checks: list[Check]
) -> ProjectConfig | None:
    """The config as the doctor's first check reads it, its findings appended to ``checks``;
    None when it does not load."""
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


def selected_modes(
    config: ProjectConfig, requested: Sequence[str], checks: list[Check]
) -> list[ModeSettings]:
    """The modes a run with ``requested`` would take; none, with the error in ``checks``, when
    a name is unknown or every mode is off by default."""
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


def input_check(
    project_root: Path, config_path: str, config: ProjectConfig, mode: ModeSettings, scope: str
) -> Check:
    """Whether the mode's ``input`` patterns match a spec file."""
    found = specs_of_mode(project_root, config, mode)
    patterns = ", ".join(
        config.base.input_patterns if config.rules.modes_are_full_configs else mode.input_patterns
    )
    if found.specs or found.excluded:
        left_out = f', {len(found.excluded)} left out by this mode\'s "!" patterns'
        counted = f"matches {len(found.specs)} spec(s){left_out if found.excluded else ''}"
        return Check(Level.OK, scope, f"input {patterns} {counted}")
    return Check(
        Level.WARN,
        scope,
        f"input {patterns} matches no spec file",
        f'correct "input" in {config_path} (paths are from the project folder), or add '
        "*.spec.ts files there",
    )
