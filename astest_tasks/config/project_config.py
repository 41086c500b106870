"""Load ``as-test.config.json`` into one resolved settings object per mode.

The settings are declared once in ``keys.py``; ``config_reader.py`` checks each (and words its
errors), ``layers.py`` layers a mode onto the base config with the rules of the as-test the
project has installed (``as_test_rules.py``), and ``mode_layers.py`` reads the ``modes``. Here
the result becomes a ``ModeSettings`` per mode, whose plain fields name the key they copy.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from astest_tasks.config import keys
from astest_tasks.config.as_test_rules import MODE_NAME_ENV_VAR, AsTestRules
from astest_tasks.config.as_test_version import installed_version
from astest_tasks.config.config_reader import (
    DISABLED,
    ConfigObject,
    Source,
    Target,
    closest,
    display_path,
    normalise_feature,
    read_json_object,
)
from astest_tasks.config.input_warnings import input_warnings
from astest_tasks.config.layers import (
    DEFAULTS,
    Values,
    folders,
    merge_mode,
    read_layer,
    resolve_base,
)
from astest_tasks.config.mode_layers import DEFAULT_MODE_NAME, read_modes
from astest_tasks.core.errors import ConfigError
from astest_tasks.core.frozen import frozen, record_fields
from astest_tasks.coverage.rules import CoverageRules

__all__ = [
    "COVERAGE_ENV_VAR",
    "DEFAULT_MODE_NAME",
    "FuzzSettings",
    "ModeSettings",
    "ProjectConfig",
    "Target",
    "load_config",
    "normalise_feature",
    "select_modes",
    "split_mode_names",
]

COVERAGE_ENV_VAR = "AS_TEST_COVERAGE_ENABLED"
# Where our own files go, besides the build output: reports, the HTML page, caches, the lock.
DEFAULT_OUTPUT_ROOT = ".as-test"

_KEY = "key"
_SHOWN = "shown"
_BUILD_KEY = "build_key"


def _normalise(path: str) -> str:
    return posixpath.normpath(path)


def _optional_dir(path: str) -> str | None:
    return None if path == DISABLED else _normalise(path)


def _sorted(env: Mapping[str, str]) -> dict[str, str]:
    # Sorted so that equal settings produce equal cache keys whatever order the JSON used.
    return dict(sorted(env.items()))


def from_key(
    key: keys.Key[Any], shown: Callable[[Any], object] | None = None, *, build_key: str = ""
) -> dict[str, object]:
    """A ``ModeSettings`` field's metadata: the key it copies (through ``shown``), and its name
    in the build cache key when a change to it must rebuild (``ModeSettings.build_key_part``)."""
    return {_KEY: key, _SHOWN: shown, _BUILD_KEY: build_key}


@frozen
class FuzzSettings:
    """One mode's ``fuzz`` campaign settings (as-test 1.0.7's defaults); see
    ``ModeSettings.fuzz``.

    ``seed`` is None unless the config pins one: a campaign then draws a random seed, as
    as-test 1.1.0 does (1.0.7 fell back to 1337, so every campaign tried the same inputs).
    """

    input_patterns: tuple[str, ...] = ("./assembly/__fuzz__/*.fuzz.ts",)
    runs: int = 1000
    seed: int | None = None
    explicit_input: bool = False  # the config names the files: finding none is worth a warning


@frozen
class ModeSettings:
    """Everything needed to build and run the specs of one mode, already merged and suffixed."""

    name: str = field(metadata={_BUILD_KEY: "mode"})
    target: Target = field(metadata=from_key(keys.TARGET, build_key="target"))
    input_patterns: tuple[str, ...] = field(metadata=from_key(keys.INPUT))
    out_dir: str = field(metadata=from_key(keys.OUT_DIR, _normalise))
    logs_dir: str | None = field(metadata=from_key(keys.LOGS, _optional_dir))
    coverage_dir: str | None = field(metadata=from_key(keys.COVERAGE_DIR, _optional_dir))
    snapshot_dir: str = field(metadata=from_key(keys.SNAPSHOT_DIR, _normalise))
    crash_dir: str = field(metadata=from_key(keys.CRASH_DIR, _normalise))
    asconfig: str | None = field(
        metadata=from_key(keys.ASCONFIG, _optional_dir, build_key="asconfig")
    )
    build_args: tuple[str, ...] = field(metadata=from_key(keys.BUILD_ARGS, build_key="args"))
    build_cmd: str = field(metadata=from_key(keys.BUILD_CMD, build_key="cmd"))
    coverage_enabled: bool = field(
        metadata=from_key(
            keys.COVERAGE, lambda coverage: coverage.enabled_for_build, build_key="coverage"
        )
    )
    env: Mapping[str, str] = field(metadata=from_key(keys.ENV, _sorted))
    # env + buildOptions.env + as-test's own flags; and env + runOptions.env (see _settings)
    build_env: Mapping[str, str] = field(metadata={_BUILD_KEY: "env"})
    run_env: Mapping[str, str]
    runtime_cmd: str = field(metadata=from_key(keys.RUNTIME_CMD))
    # runOptions.runtime.browser: web modes only; "" = the default Chromium
    browser: str = field(metadata=from_key(keys.BROWSER))
    is_default: bool = field(metadata=from_key(keys.IS_DEFAULT))
    coverage_rules: CoverageRules = field(  # when coverage is on
        default_factory=CoverageRules,
        metadata=from_key(keys.COVERAGE, lambda coverage: coverage.rules),
    )
    # as-test 1.3+ "features": asc features (--enable NAME) and "try-as"; part of the build key.
    features: tuple[str, ...] = field(
        default=(), metadata=from_key(keys.FEATURES, build_key="features")
    )
    # The fuzz campaigns of this mode: a mode's "fuzz" keys replace the base's one by one.
    fuzz_input: tuple[str, ...] = field(
        default=keys.FUZZ_INPUT.default, metadata=from_key(keys.FUZZ_INPUT)
    )
    fuzz_runs: int = field(default=keys.FUZZ_RUNS.default, metadata=from_key(keys.FUZZ_RUNS))
    fuzz_seed: int | None = field(default=None, metadata=from_key(keys.FUZZ_SEED))

    @property
    def fuzz(self) -> FuzzSettings:
        return FuzzSettings(
            input_patterns=self.fuzz_input,
            runs=self.fuzz_runs,
            seed=self.fuzz_seed,
            explicit_input=self.fuzz_input != keys.FUZZ_INPUT.default,
        )

    def build_key_part(self) -> dict[str, object]:
        """The settings a build depends on, as the build's cache key holds them."""
        part: dict[str, object] = {}
        for setting in record_fields(type(self)):
            name = setting.metadata.get(_BUILD_KEY)
            if name:
                part[name] = _plain_json(getattr(self, setting.name))
        return part


def _plain_json(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


@frozen
class ProjectConfig:
    path: Path
    exists: bool
    base: ModeSettings
    modes: Mapping[str, ModeSettings]
    warnings: tuple[str, ...]
    rules: AsTestRules = field(default_factory=lambda: AsTestRules.for_version(None))
    # Where every file of ours that is not build output goes (layout.output_root).
    output_root: str = DEFAULT_OUTPUT_ROOT
    # Where 0.1.0 put them: the folder that holds outDir (for the moved note only).
    former_output_root: str = DEFAULT_OUTPUT_ROOT

    @property
    def fuzz(self) -> FuzzSettings:
        """The base config's fuzz settings (each mode's are ``ModeSettings.fuzz``)."""
        return self.base.fuzz


# --------------------------------------------------------------------------------------------
# Public API


def load_config(
    config_path: Path, project_root: Path, rules: AsTestRules | None = None
) -> ProjectConfig:
    """Read, check and resolve the config; a missing file means "all defaults".

    ``rules`` are those of the as-test the project has installed (found when not given; the
    newest tested when none is installed yet): they decide which keys exist and how modes merge.
    """
    root = Path(os.path.abspath(project_root))
    if rules is None:
        rules = AsTestRules.for_version(installed_version(root))
    path = Path(os.path.abspath(root / config_path))
    source = Source(display_path(path, root), path.parent, root, [], rules, keys.FORMAT)
    if not path.exists():
        base = _settings(
            DEFAULT_MODE_NAME, folders(DEFAULTS, DEFAULT_MODE_NAME, DEFAULTS, None), rules
        )
        return ProjectConfig(path, False, base, {}, (), rules=rules)
    raw = read_json_object(source, path)
    source.warn_unknown_keys(raw, "", "$")
    base_values = resolve_base(read_layer(ConfigObject(source, raw, "$")))
    modes = {
        name: _settings(
            name,
            folders(merge_mode(base_values, layer, rules), name, base_values, layer),
            rules,
        )
        for name, layer in read_modes(source, raw.get("modes")).items()
    }
    base_folders = folders(base_values, DEFAULT_MODE_NAME, base_values, None)
    base = _settings(DEFAULT_MODE_NAME, base_folders, rules)
    source.warnings.extend(
        input_warnings(
            source.display,
            rules,
            base.input_patterns,
            {name: mode.input_patterns for name, mode in modes.items()},
            base.fuzz_input,
        )
    )
    return ProjectConfig(
        path,
        True,
        base,
        modes,
        tuple(source.warnings),
        rules,
        _output_root(raw.get("output")),
        _former_output_root(base_values),
    )


def select_modes(config: ProjectConfig, requested: Sequence[str] = ()) -> list[ModeSettings]:
    """The modes to run, following the installed as-test.

    With names (each may be a comma list): exactly those, in order, where ``"default"`` means the
    base config. With none, as-test's plain run: the base config when no mode is declared;
    otherwise every declared mode before 1.1.0, the base config plus the modes whose
    ``default`` is not false in 1.1.0 to 1.1.6, and only those modes from 1.1.7 on. When every
    declared mode has ``"default": false`` that selects nothing, as in as-test; the caller
    decides how to report it.
    """
    names = split_mode_names(requested)
    if names:
        return [_find_mode(config, name) for name in names]
    if not config.modes:
        return [config.base]
    chosen = [mode for mode in config.modes.values() if mode.is_default]
    return [config.base, *chosen] if config.rules.base_runs_with_modes else chosen


def split_mode_names(requested: Sequence[str]) -> list[str]:
    """``--mode`` values (each may be a comma list) as names: trimmed, first occurrence kept."""
    names: dict[str, None] = {}  # a dict keeps the first occurrence's order
    for entry in requested:
        for token in entry.split(","):
            name = token.strip()
            if name:
                names.setdefault(name)
    return list(names)


def _find_mode(config: ProjectConfig, name: str) -> ModeSettings:
    if name == DEFAULT_MODE_NAME:
        return config.base
    if name in config.modes:
        return config.modes[name]
    suggestion = closest(name, list(config.modes))
    hint = f' (did you mean "{suggestion}"?)' if suggestion else ""
    where = display_path(config.path, Path.cwd())
    from astest_tasks.config.mode_hint import add_mode_fix  # an unknown mode's fix alone

    fix = add_mode_fix(name, where, list(config.modes), config.base.target)
    raise ConfigError(where, "mode", f'unknown mode "{name}"{hint}', fix)


# --------------------------------------------------------------------------------------------
# Values -> ModeSettings


def _settings(name: str, values: Values, rules: AsTestRules) -> ModeSettings:
    """Mode ``name``'s settings: each field copies its key (``from_key``), the envs combine."""
    copied: dict[str, Any] = {}
    for setting in record_fields(ModeSettings):
        key = setting.metadata.get(_KEY)
        if key is not None:
            shown = setting.metadata[_SHOWN]
            copied[setting.name] = shown(values[key]) if shown else values[key]
    env, build_env, run_env = values[keys.ENV], values[keys.BUILD_ENV], values[keys.RUN_ENV]
    as_test_flags = {COVERAGE_ENV_VAR: "1" if copied["coverage_enabled"] else "0"}
    if rules.mode_name_env:
        # as-test 1.3+: the transform bakes the mode's name in for the runtime's mode() helper.
        as_test_flags[MODE_NAME_ENV_VAR] = name
    return ModeSettings(
        name=name,
        build_env=_sorted({**env, **build_env, **as_test_flags}),
        run_env=_sorted({**env, **run_env}),
        **copied,
    )


def _output_root(output: object) -> str:
    """``.as-test``, or the folder a string ``output`` names (as-test puts its own folders
    there: ``R/build``, ``R/logs``...), unless that is the project root itself.

    Never derived from ``outDir``: a project that builds into ``./build`` would get our
    reports, ``html/``, ``reports/`` and ``cache/`` beside the user's own files at its root.
    as-test writes nothing there by default either: 1.0.7's TAP reporter writes to
    ``./.as-test/reports``, both versions' crashes go to ``./.as-test/crashes``; only 1.8's
    opt-in build cache (``"cache"``, which we ignore) sits beside ``outDir``.
    The config reader has checked ``output`` already: a string here is a non-empty path.
    """
    if isinstance(output, str):
        root = _normalise(output)
        if root != ".":
            return root
    return DEFAULT_OUTPUT_ROOT


def _former_output_root(base: Values) -> str:
    """The folder that holds the base config's build folder (``outDir``'s parent): where
    0.1.0 wrote the reports and caches."""
    return posixpath.dirname(_normalise(base[keys.OUT_DIR])) or "."
