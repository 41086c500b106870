"""Which config, mode and asc command-line rules an as-test version follows.

Each rule names the release that introduced it, read from as-test's own source history (its
``cli/util.ts``, ``cli/index.ts`` and ``cli/commands/build-core.ts`` at each release tag) and its
CHANGELOG. The config (the merge rules in config/keys.py, the readers) and the build ask this
module; none of them compares version strings itself.
"""

from __future__ import annotations

from astest_tasks.config.as_test_version import NEWEST_TESTED, AsTestVersion
from astest_tasks.core.frozen import frozen

# Releases that changed a rule we follow.
MODES_ARE_FULL_CONFIGS = "1.0.14"  # mergeRootConfig: a mode is a whole config (input, output,
# fuzz, $schema; or a path to a config file) and its buildOptions.args replace the base's
MODE_MAPS_REPLACE = "1.0.16"  # "modes inherit": env maps replace, coverage merges key by key
MODE_DEFAULT_FLAG = "1.1.0"  # modes.*.default; a plain run is the base config + default modes
BASE_SKIPPED_WITH_MODES = "1.1.7"  # a plain run is the default modes only
FEATURES = "1.3.0"  # "features": [...] and AS_TEST_MODE_NAME in the build env
TRANSFORM_FIRST = "1.4.0"  # --transform as-test/transform comes before the user's args
# A mode's own "!" patterns in "input" take specs out of that mode (the mode-level exclusion in
# run-core's run()); the base config's "!" patterns take specs out of every mode from 1.5.2,
# when `ast test` started resolving its files through selectors.ts's resolveSpecFiles (glob's
# ignore). Before, a "!" pattern was a glob of its own that matched nothing.
MODE_INPUT_EXCLUSIONS = "1.5.0"
INPUT_EXCLUSIONS = "1.5.2"
BINDINGS_RAW_UNLESS_DECLARED = "1.5.1"  # --bindings raw only when the project has no --bindings
CACHE = "1.6.0"  # as-test's own build cache setting
REPORTER_REMOVED = "1.7.0"  # runOptions.reporter is an unknown key from here on
# describeCoveragePoint knows the transform's finer point types (Parameter, Ternary, IfBranch,
# Assignment, ...) and guesses declarations and calls only for some types (coverage/points.py);
# cli/coverage-points.ts is the same from v1.1.3 to v1.8.0, and v1.1.2 had none of it.
TYPED_COVERAGE_POINTS = "1.1.3"

MODE_NAME_ENV_VAR = "AS_TEST_MODE_NAME"


@frozen
class AsTestRules:
    """The rules of one as-test version, as flags; ``for_version`` builds them."""

    version: str
    modes_are_full_configs: bool
    mode_maps_replace: bool
    mode_default_flag: bool
    base_runs_with_modes: bool
    features: bool
    mode_name_env: bool
    transform_first: bool
    mode_input_exclusions: bool
    input_exclusions: bool
    bindings_raw_unless_declared: bool
    cache: bool
    reporter: bool
    typed_coverage_points: bool

    @classmethod
    def for_version(cls, version: AsTestVersion | None) -> AsTestRules:
        """The rules of ``version``; without one (not installed yet), the newest tested."""
        v = version or AsTestVersion.parse(NEWEST_TESTED)
        return cls(
            version=str(v),
            modes_are_full_configs=v.at_least(MODES_ARE_FULL_CONFIGS),
            mode_maps_replace=v.at_least(MODE_MAPS_REPLACE),
            mode_default_flag=v.at_least(MODE_DEFAULT_FLAG),
            base_runs_with_modes=v.at_least(MODE_DEFAULT_FLAG)
            and not v.at_least(BASE_SKIPPED_WITH_MODES),
            features=v.at_least(FEATURES),
            mode_name_env=v.at_least(FEATURES),
            transform_first=v.at_least(TRANSFORM_FIRST),
            mode_input_exclusions=v.at_least(MODE_INPUT_EXCLUSIONS),
            input_exclusions=v.at_least(INPUT_EXCLUSIONS),
            bindings_raw_unless_declared=v.at_least(BINDINGS_RAW_UNLESS_DECLARED),
            cache=v.at_least(CACHE),
            reporter=not v.at_least(REPORTER_REMOVED),
            typed_coverage_points=v.at_least(TYPED_COVERAGE_POINTS),
        )

    @classmethod
    def parse(cls, version: str) -> AsTestRules:
        return cls.for_version(AsTestVersion.parse(version))

    def at_least(self, release: str) -> bool:
        return AsTestVersion.parse(self.version).at_least(release)
