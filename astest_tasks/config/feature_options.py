"""The options that turn features on or off this time, over the config's ``coverage`` and
``features``: declared here (core/option_declarations.py says how) and read together into
``FeatureSwitches`` (feature_switches.py) when the record is made; planning takes the record
whole as ``TaskOptions.feature_switches``."""

from __future__ import annotations

from dataclasses import field

from astest_tasks.config.coverage_switch import parse_coverage_switch
from astest_tasks.config.feature_switches import FeatureSwitches
from astest_tasks.core.frozen import frozen
from astest_tasks.core.option_declarations import OptionDoc, option


@frozen
class FeatureOptions:
    """``--coverage``, ``--enable`` and ``--disable`` as given."""

    coverage: bool | None = option(
        "",
        "`on` or `off` to build and run with or without coverage this time, over the "
        'config\'s "coverage" (default: the config decides)',
        parse=parse_coverage_switch,
        doc=OptionDoc(
            flag="`--coverage on`",
            env="`ASTEST_COVERAGE=on`",
            default="the config's `coverage`",
            meaning=(
                "build and run with (`on`) or without (`off`) coverage this time (see "
                "[Coverage](coverage.md))"
            ),
        ),
    )
    enable: str = option(
        "",
        'comma-separated features to turn on this time, over the config\'s "features", as '
        "as-test 1.8's --enable: `coverage`, `try-as` or an asc feature (`simd`, ...)",
        short="e",
        doc=OptionDoc(
            flag="`--enable a,b` (`-e`)",
            env="`ASTEST_ENABLE`",
            default="the config's `features`",
            meaning=(
                "features to turn on this time, as as-test 1.8's `--enable`: `coverage` (as "
                "`--coverage on`), `try-as`, or an asc feature (`simd`, `threads`, …: `asc "
                "--enable NAME`); part of the build key, so switching rebuilds, and the next "
                "run without it rebuilds again. Features came with as-test 1.3.0: under an "
                "older one only `coverage` is accepted"
            ),
        ),
    )
    disable: str = option(
        "",
        'comma-separated features to turn off this time, over the config\'s "features" '
        "(`coverage`, `try-as` or an asc feature)",
        doc=OptionDoc(
            flag="`--disable a,b`",
            env="`ASTEST_DISABLE`",
            default="the config's `features`",
            meaning=(
                "features to turn off this time (`coverage`, `try-as` or an asc feature); a "
                "name in both lists is an error"
            ),
        ),
    )

    # Their joint reading, made once with the record (no option itself).
    features: FeatureSwitches = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        features = FeatureSwitches.parse(self.enable, self.disable)
        object.__setattr__(self, "features", features)  # frozen: set once, here
