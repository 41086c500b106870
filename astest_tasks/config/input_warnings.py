"""Warnings for ``input`` settings the installed as-test would not act on, each with its fix.

The rules are ``mode_specs.py``'s: a mode's own globs select nothing from as-test 1.0.14 on (the
specs come from the base ``input``), ``!`` patterns exclude only from the releases named in
``as_test_rules.py``, and as-test's fuzz command never reads them in ``fuzz.input``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from astest_tasks.config.as_test_rules import INPUT_EXCLUSIONS, MODE_INPUT_EXCLUSIONS, AsTestRules
from astest_tasks.config.input_exclusions import (
    exclusions_of,
    includes_of,
    mode_only_exclusions,
)


def input_warnings(
    where: str,
    rules: AsTestRules,
    base_input: Sequence[str],
    mode_inputs: Mapping[str, Sequence[str]],
    fuzz_input: Sequence[str],
) -> list[str]:
    """``where`` is the config as messages show it; ``mode_inputs`` each mode's merged input."""
    warnings: list[str] = []
    if not rules.input_exclusions:
        warnings += [
            f'{where}: input: "{pattern}" excludes nothing under as-test {rules.version}: '
            f'"!" patterns in the base "input" came with as-test {INPUT_EXCLUSIONS} (before, '
            "one is a glob of its own that matches no file); fix: narrow the other globs, or "
            f"upgrade as-test to {INPUT_EXCLUSIONS} or newer"
            for pattern in exclusions_of(base_input)
        ]
    if rules.modes_are_full_configs:  # before, mode_layers.py warns about a mode's "input"
        for name, mode_input in mode_inputs.items():
            warnings += _mode_warnings(where, rules, name, base_input, mode_input)
    warnings += [
        f'{where}: fuzz.input: "{pattern}" excludes nothing: as-test\'s fuzz command globs '
        "fuzz.input without exclusions, so it is a glob of its own that matches no file; fix: "
        "narrow the other fuzz globs"
        for pattern in exclusions_of(fuzz_input)
    ]
    return warnings


def _mode_warnings(
    where: str,
    rules: AsTestRules,
    name: str,
    base_input: Sequence[str],
    mode_input: Sequence[str],
) -> list[str]:
    field = f"modes.{name}.input"
    warnings: list[str] = []
    if set(includes_of(mode_input)) != set(includes_of(base_input)):
        warnings.append(
            f'{where}: {field}: as-test runs the specs of the base "input" in every mode, so '
            'this mode\'s own globs select nothing; fix: put the globs in the base "input", and '
            'leave specs out of this mode with "!" patterns'
        )
    if mode_only_exclusions(base_input, mode_input) and not rules.mode_input_exclusions:
        warnings.append(
            f'{where}: {field}: "!" patterns exclude specs from a mode from as-test '
            f"{MODE_INPUT_EXCLUSIONS} on, and this project has as-test {rules.version}, which "
            f"runs every spec in this mode; fix: upgrade as-test to {MODE_INPUT_EXCLUSIONS} or "
            "newer"
        )
    return warnings
