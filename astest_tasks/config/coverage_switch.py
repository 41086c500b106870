"""``--coverage`` / ``ASTEST_COVERAGE``: turn coverage on or off for one doit run, over the config.

Like as-test's ``--enable coverage`` / ``--disable coverage``, it changes both what the build
instruments (``AS_TEST_COVERAGE_ENABLED`` in the build env, part of the build key, so the specs are
rebuilt and re-run) and whether the summary counts the points. The config's include/exclude/ignore
rules still apply.
"""

from __future__ import annotations

from dataclasses import replace

from astest_tasks.config.project_config import COVERAGE_ENV_VAR, ModeSettings
from astest_tasks.core.errors import UserError

_ON = frozenset({"on", "true", "1", "yes"})
_OFF = frozenset({"off", "false", "0", "no"})


def parse_coverage_switch(value: str) -> bool | None:
    """True/False to force coverage on/off; None (an empty value) leaves it to the config."""
    word = value.strip().lower()
    if not word:
        return None
    if word in _ON:
        return True
    if word in _OFF:
        return False
    raise UserError(
        f"--coverage / ASTEST_COVERAGE: {value!r} is not a coverage switch; fix: use on or off "
        '(also true/false, 1/0, yes/no), or leave it empty to follow the config\'s "coverage"'
    )


def with_coverage(mode: ModeSettings, enabled: bool | None) -> ModeSettings:
    """The mode with coverage forced on or off; unchanged when ``enabled`` is None."""
    if enabled is None or enabled == mode.coverage_enabled:
        return mode
    build_env = dict(mode.build_env)
    build_env[COVERAGE_ENV_VAR] = "1" if enabled else "0"
    return replace(mode, coverage_enabled=enabled, build_env=dict(sorted(build_env.items())))
