"""``--enable`` / ``--disable`` (``ASTEST_ENABLE`` / ``ASTEST_DISABLE``): features for one run.

As as-test 1.8's CLI (``resolveFeatureToggles`` and ``resolveEffectiveFeatures``): each is a
comma-separated list of feature names, normalised as the config's ``features`` are; they override
the selected modes' ``features`` for this run. ``coverage`` is not an asc feature: it turns
coverage on or off (the ``--coverage`` switch); ``try-as`` wires up the try-as transform; any
other name becomes ``asc --enable NAME``. The features are part of the build key (cache_keys.py),
so a switch rebuilds and re-runs the specs it changes, and dropping it rebuilds them again.

Features came with as-test 1.3.0: under an older as-test only ``coverage`` means anything.
"""

from __future__ import annotations

from dataclasses import replace

from astest_tasks.config import as_test_rules
from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.project_config import ModeSettings, normalise_feature
from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen

COVERAGE = "coverage"


@frozen
class FeatureSwitches:
    """The features switched on and off for this run, coverage apart."""

    enable: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    coverage: bool | None = None  # --enable/--disable coverage; None leaves it to the rest

    @classmethod
    def parse(cls, enable: str, disable: str) -> FeatureSwitches:
        enabled = _names(enable, "--enable / ASTEST_ENABLE")
        disabled = _names(disable, "--disable / ASTEST_DISABLE")
        both = [name for name in enabled if name in disabled]
        if both:
            raise UserError(
                f"--enable and --disable both name {both[0]!r}; fix: keep it in one of "
                "--enable / ASTEST_ENABLE and --disable / ASTEST_DISABLE"
            )
        coverage = True if COVERAGE in enabled else False if COVERAGE in disabled else None
        return cls(
            enable=tuple(name for name in enabled if name != COVERAGE),
            disable=tuple(name for name in disabled if name != COVERAGE),
            coverage=coverage,
        )

    @property
    def changes_features(self) -> bool:
        return bool(self.enable or self.disable)

    def check_supported(self, rules: AsTestRules) -> None:
        """Under an as-test without ``features`` (before 1.3.0), only coverage can be switched."""
        if rules.features or not self.changes_features:
            return
        flag, name = ("--enable", self.enable[0]) if self.enable else ("--disable", self.disable[0])
        raise UserError(
            f"{flag} {name}: as-test {rules.version} has no features (they came in "
            f"{as_test_rules.FEATURES}), only --enable/--disable coverage; fix: pass asc's flag "
            f'in the config instead, "buildOptions": {{ "args": ["--enable", "{name}"] }}, or '
            f"upgrade as-test to {as_test_rules.FEATURES} or later"
        )

    def apply(self, mode: ModeSettings) -> ModeSettings:
        """The mode with this run's features: its own, plus the enabled, minus the disabled."""
        if not self.changes_features:
            return mode
        features = dict.fromkeys(mode.features)
        features.update(dict.fromkeys(self.enable))
        for name in self.disable:
            features.pop(name, None)
        return replace(mode, features=tuple(features))


NO_FEATURE_SWITCHES = FeatureSwitches()


def combined_coverage(
    switch: bool | None, features: FeatureSwitches, show_coverage: bool
) -> bool | None:
    """Coverage on/off for this run from ``--coverage``, ``--enable/--disable coverage`` and
    ``--show-coverage`` (which, as in as-test 1.8, turns coverage on unless it is switched off)."""
    if switch is not None and features.coverage is not None and switch != features.coverage:
        word = "on" if switch else "off"
        other = "--enable" if features.coverage else "--disable"
        raise UserError(
            f"--coverage {word} and {other} coverage disagree; fix: give only one of them"
        )
    chosen = switch if switch is not None else features.coverage
    if chosen is None and show_coverage:
        return True
    return chosen


def _names(value: str, option: str) -> list[str]:
    """The normalised names of a comma list, in order, without repeats."""
    names: dict[str, None] = {}
    for part in value.split(","):
        if not part.strip():
            continue
        names.setdefault(normalise_feature(part))
    if value.strip() and not names:
        raise UserError(f"{option}: {value!r} names no feature; fix: e.g. `simd,try-as`")
    return list(names)
