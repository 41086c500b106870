"""Every setting of ``as-test.config.json``, declared once.

A ``Key`` says where the setting is written, its default, which reader checks it (the reader
owns the one-line error and its ``fix:``, see ``config_reader.py``), how a mode's own value goes
onto the base config's under each as-test version, and, for a directory, how modes get their own
folder. ``KEYS`` lists them in reading order, between the ``Check``s of the parts of the format
we validate but do not use; ``layers.py`` does the layering and the defaults from this table
alone, and ``ModeSettings`` names the key each of its plain fields is a copy of.

To add a setting: declare it here, and give ``ModeSettings`` a field ``from_key(NEW_KEY)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from astest_tasks.config import config_reader as read
from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.config_reader import DISABLED, ConfigObject, CoverageSetting, Target

T = TypeVar("T")


def mode_replaces(base: T, own: T, rules: AsTestRules) -> T:
    """The usual rule: a mode's own value replaces the base config's."""
    return own


@dataclass(frozen=True)
class Folder:
    """How a directory setting is split per mode.

    The base config's folder gets ``/default`` appended. A mode that does not set the key uses
    ``<base folder>/<mode name>``, or, when ``shared``, the base config's own folder unsuffixed.
    A folder switched off with ``"none"`` (``switchable``) stays off, unsuffixed.
    """

    shared: bool = False
    switchable: bool = False


@dataclass(frozen=True, eq=False)  # eq=False: keys are compared and hashed by identity
class Key(Generic[T]):
    json: str  # where it is written in a config object, for readers of this table
    default: T
    read: Callable[[ConfigObject], T | None]  # None: not set in this object
    mode_merge: Callable[[T, T, AsTestRules], T] = mode_replaces
    folder: Folder | None = None


@dataclass(frozen=True)
class Check:
    """A part of the format that is validated (typos surface) but sets nothing we use."""

    run: Callable[[ConfigObject], None]


# --------------------------------------------------------------------------------------------
# Merge rules that changed between as-test versions (as_test_rules.py names the releases)


def args_of_mode(
    base: tuple[str, ...], own: tuple[str, ...], rules: AsTestRules
) -> tuple[str, ...]:
    """as-test 1.0.14 on: a mode's buildOptions.args replace the base's; before, appended."""
    return own if rules.modes_are_full_configs else (*base, *own)


def runtime_of_mode(base: str, own: str, rules: AsTestRules) -> str:
    """An empty runtime command means the default runner, except before 1.0.14 (1.0.7 skips an
    empty cmd, so the base config's command stays)."""
    return base if own == "" and not rules.modes_are_full_configs else own


def env_of_mode(base: dict[str, str], own: dict[str, str], rules: AsTestRules) -> dict[str, str]:
    """as-test 1.0.16 on: a mode's env map replaces the base's (as-test's mergeRootConfig);
    before, it merges into the base's key by key."""
    return own if rules.mode_maps_replace else {**base, **own}


def coverage_of_mode(
    base: CoverageSetting, own: CoverageSetting, rules: AsTestRules
) -> CoverageSetting:
    """A mode's boolean replaces; a mode's object overrides only the keys it has (1.0.16 on).

    Before 1.0.16 a mode's object replaced the base's whole; before 1.0.14 with "enabled"
    false unless it says otherwise (1.0.7 fills the mode's object in from its defaults).
    """
    if not own.is_object:
        return own
    if not rules.modes_are_full_configs:
        return replace(own, enabled=bool(own.enabled))
    if not rules.mode_maps_replace:
        return own
    # as-test 1.1.0 merges an object key by key and ignore.* list by list (1.0.7 replaced the
    # whole object; merging keeps a mode that only says "enabled" from losing the base filters).
    ignore = {**(base.ignore or {}), **(own.ignore or {})}
    return CoverageSetting(
        is_object=True,
        enabled=_pick(own.enabled, base.enabled),
        include_specs=_pick(own.include_specs, base.include_specs),
        include=_pick(own.include, base.include),
        exclude=_pick(own.exclude, base.exclude),
        ignore=ignore if base.ignore is not None or own.ignore is not None else None,
    )


def _pick(own: T | None, inherited: T) -> T:
    return inherited if own is None else own


# --------------------------------------------------------------------------------------------
# The settings

IS_DEFAULT = Key[bool]("modes.*.default", True, read.read_is_default)
INPUT = Key[tuple[str, ...]]("input", ("./assembly/__tests__/*.spec.ts",), read.read_input)
OUT_DIR = Key[str](
    "outDir | output.build", "./.as-test/build", read.output_dir_reader("outDir"), folder=Folder()
)
LOGS = Key[str](
    "logs | output.logs",
    "./.as-test/logs",
    read.output_dir_reader("logs"),
    folder=Folder(switchable=True),
)
COVERAGE_DIR = Key[str](
    "coverageDir | output.coverage",
    "./.as-test/coverage",
    read.output_dir_reader("coverageDir"),
    folder=Folder(switchable=True),
)
SNAPSHOT_DIR = Key[str](
    "snapshotDir | output.snapshots", "./.as-test/snapshots", read.output_dir_reader("snapshotDir")
)
ASCONFIG = Key[str]("config", DISABLED, read.read_asconfig)
COVERAGE = Key[CoverageSetting](
    "coverage",
    CoverageSetting(is_object=False, enabled=False),
    read.read_coverage,
    coverage_of_mode,
)
FEATURES = Key[tuple[str, ...]]("features", (), read.read_features)
ENV = Key[dict[str, str]]("env", {}, read.read_env, env_of_mode)
BUILD_CMD = Key[str]("buildOptions.cmd", "", read.read_build_cmd)
BUILD_ARGS = Key[tuple[str, ...]]("buildOptions.args", (), read.read_build_args, args_of_mode)
TARGET = Key[Target]("buildOptions.target", "wasi", read.read_target)
BUILD_ENV = Key[dict[str, str]]("buildOptions.env", {}, read.read_build_env, env_of_mode)
FUZZ_INPUT = Key[tuple[str, ...]](
    "fuzz.input", ("./assembly/__fuzz__/*.fuzz.ts",), read.read_fuzz_input
)
FUZZ_RUNS = Key[int]("fuzz.runs", 1000, read.read_fuzz_runs)
FUZZ_SEED = Key[int | None]("fuzz.seed", None, read.read_fuzz_seed)  # None: a random one
CRASH_DIR = Key[str](
    "fuzz.crashDir", "./.as-test/crashes", read.read_crash_dir, folder=Folder(shared=True)
)
RUNTIME_CMD = Key[str](  # "" = the default runner for the target (runtime_command.py)
    "runOptions.runtime.cmd | runOptions.runtime.run | runOptions.run",
    "",
    read.read_runtime_cmd,
    runtime_of_mode,
)
BROWSER = Key[str]("runOptions.runtime.browser", "", read.read_browser)  # "" = Chromium
RUN_ENV = Key[dict[str, str]]("runOptions.env", {}, read.read_run_env, env_of_mode)

# Reading order: a config with several problems reports the first of these that finds one.
READ_ORDER: tuple[Key[Any] | Check, ...] = (
    IS_DEFAULT,
    Check(read.check_schema),
    INPUT,
    OUT_DIR,
    LOGS,
    COVERAGE_DIR,
    SNAPSHOT_DIR,
    ASCONFIG,
    Check(read.check_cache),
    COVERAGE,
    FEATURES,
    ENV,
    BUILD_CMD,
    BUILD_ARGS,
    TARGET,
    BUILD_ENV,
    Check(read.check_fuzz),
    FUZZ_INPUT,
    FUZZ_RUNS,
    FUZZ_SEED,
    CRASH_DIR,
    RUNTIME_CMD,
    BROWSER,
    Check(read.check_reporter),
    RUN_ENV,
)
KEYS: tuple[Key[Any], ...] = tuple(entry for entry in READ_ORDER if isinstance(entry, Key))

# Keys of as-test's format that are validated (a typo surfaces) but set nothing a run of ours
# uses, each with the reason; every key of as-test 1.8's schema is a Key above, lies inside one,
# or is here (tests/config/test_keys.py).
VALIDATED_ONLY: dict[str, str] = {
    "$schema": "names the schema for editors; nothing to run",
    "cache": "as-test's build cache; doit's own up-to-date checks take its place",
    "cache.type": "as-test's build cache; doit's own up-to-date checks take its place",
    "cache.maxTime": "as-test's build cache; doit's own up-to-date checks take its place",
    "fuzz.target": "fuzz builds are always for bindings, as as-test builds them",
    "fuzz.maxInputBytes": "validated only: our fuzz runs do not use it",
    "fuzz.corpusDir": "validated only: our fuzz runs keep no corpus",
    "runOptions.reporter": "as-test's reporter modules (removed in 1.7.0); our reports are doit's",
}
