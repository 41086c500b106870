"""Every key of ``as-test.config.json``, declared once.

A declaration says where the key is written (its JSON path, ``at``), what it means to users
(its ``Doc``: its row of the table in docs/configuration.md), which reader or check of
``config_reader.py`` takes its value from there (the reader owns the one-line error and its
``fix:``), and, for a ``Key`` (a setting a run uses), its default, how a mode's own value goes
onto the base config's under each as-test version, and, for a directory, how modes get their own
folder. A ``Check`` is a key validated (typos surface) that sets nothing a run uses; a
``Section`` an object other keys are written in; a ``Place`` a key read elsewhere (``modes``,
``output``).

Everything else follows from ``DECLARATIONS``: the keys each object may hold (``FORMAT``: an
unknown key is warned about, a declared one never), the table of keys in the docs
(``keys_docs.py``), the defaults and the layering (``layers.py``). ``READ_ORDER`` says which
problem a config with several reports first. ``ModeSettings`` names the key each of its plain
fields is a copy of.

To add a key: declare it here and list it in ``DECLARATIONS`` and ``READ_ORDER``; for a setting,
give ``ModeSettings`` a field ``from_key(NEW_KEY)``; regenerate the docs table. Each step
forgotten fails tests/config/test_keys.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field, replace
from typing import Any, Generic, TypeVar

from astest_tasks.config import config_reader as read
from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.config_reader import (
    DISABLED,
    ConfigObject,
    CoverageSetting,
    Declared,
    Format,
    Target,
)
from astest_tasks.core.frozen import frozen

T = TypeVar("T")

MODE_ONLY = "modes.*."  # the places of keys only a mode has ("modes.*.default")


def mode_replaces(base: T, own: T, rules: AsTestRules) -> T:
    """The usual rule: a mode's own value replaces the base config's."""
    return own


@frozen
class Doc:
    """A key's row in the table of keys of docs/configuration.md."""

    text: str  # what astest-tasks does with it
    mode: str = "yes"  # whether (from which as-test) a mode may set it too
    default: str | None = None  # as the table shows it; None: the Key's default as JSON


@frozen
class Folder:
    """How a directory setting is split per mode.

    The base config's folder gets ``/default`` appended. A mode that does not set the key uses
    ``<base folder>/<mode name>``, or, when ``shared``, the base config's own folder unsuffixed.
    A folder switched off with ``"none"`` (``switchable``) stays off, unsuffixed.
    """

    shared: bool = False
    switchable: bool = False


@frozen
class Key(Generic[T]):
    """A setting a run uses."""

    at: str
    default: T
    read: Callable[[ConfigObject, Declared], T | None]  # None: not set in this object
    doc: Doc
    mode_merge: Callable[[T, T, AsTestRules], T] = mode_replaces
    folder: Folder | None = None
    aliases: tuple[str, ...] = ()  # places read in its stead, in precedence order after ``at``
    parts: tuple[str, ...] = ()  # the keys of its value, when that is an object

    __eq__ = object.__eq__  # by identity (see Declaration)
    __hash__ = object.__hash__


@frozen
class Check:
    """A key of as-test's format that is validated (typos surface) but sets nothing we use."""

    at: str
    run: Callable[[ConfigObject, Declared], None]
    doc: Doc
    parts: tuple[str, ...] = ()
    aliases: tuple[str, ...] = field(default=(), init=False)

    __eq__ = object.__eq__  # by identity (see Declaration)
    __hash__ = object.__hash__


@frozen
class Section:
    """An object other keys are written in: checked, and its unknown keys warned about, when the
    first of them is read."""

    at: str
    example: str  # shown in the error when it is not an object
    doc: Doc | None = None  # its own row, when its keys share something worth a row

    __eq__ = object.__eq__  # by identity (see Declaration)
    __hash__ = object.__hash__


@frozen
class Place:
    """A key read elsewhere: by the keys that name it among their ``aliases`` (``output``), or
    by ``mode_layers.py`` (``modes``)."""

    at: str
    doc: Doc

    __eq__ = object.__eq__  # by identity (see Declaration)
    __hash__ = object.__hash__


# Each declaration is one place in the config, compared and hashed by identity (object's own
# __eq__ and __hash__, which @frozen keeps), whatever its fields hold: functions, and defaults
# that are not hashable.
Declaration = Key[Any] | Check | Section | Place


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
# The keys, in the order of the table in the docs. Within each object, the order its keys first
# appear in here is the order the did-you-mean of an unknown key tries them (on a tie, the first).

SCHEMA = Check(
    "$schema", read.check_string, Doc("checked to be a string, otherwise ignored", "yes (1.0.14+)")
)
INPUT = Key[tuple[str, ...]](
    "input",
    ("./assembly/__tests__/*.spec.ts",),
    read.read_input,
    Doc(
        "a glob or a list of globs: the spec files; a glob that matches no `*.spec.ts` file is "
        "an error. The static part of the glob is the root of the spec ids (`nested/array`). A "
        "pattern starting with `!` excludes specs (see "
        "[Excluding specs](#excluding-specs-with-patterns)). Every mode runs the specs of the "
        "base `input`, as in as-test; a mode's own `!` patterns leave specs out of that mode",
        "yes (1.0.14+), to exclude",
    ),
)
OUTPUT = Place(
    "output",
    Doc(
        "the newer spelling of the four folders: a string root `R` means `R/build`, `R/logs`, "
        "`R/coverage` and `R/snapshots`, and our reports and caches go under `R` instead of "
        "`.as-test/`; an object may set `build`, `logs`, `coverage`, `snapshots` one by one. "
        "The four keys above win over it, as in as-test",
        "yes (1.0.14+)",
    ),
)
OUT_DIR = Key[str](
    "outDir",
    "./.as-test/build",
    read.read_output_dir,
    Doc(
        "the build folder; each mode builds into `<outDir>/<mode>` (the base config into "
        "`<outDir>/default`) unless the mode sets its own `outDir`. Build records and results go "
        "beside the wasm. Reports, the HTML page and caches go under `.as-test/` whatever "
        "`outDir` says (or under the folder a string `output` names); `output.build` says the "
        "same"
    ),
    folder=Folder(),
    aliases=("output.build",),
)
LOGS = Key[str](
    "logs",
    "./.as-test/logs",
    read.read_output_dir,
    Doc(
        'readable logs per spec and mode, under `<logs>/<mode>/`; `"none"` turns them off; '
        "`output.logs` says the same"
    ),
    folder=Folder(switchable=True),
    aliases=("output.logs",),
)
COVERAGE_DIR = Key[str](
    "coverageDir",
    "./.as-test/coverage",
    read.read_output_dir,
    Doc(
        'coverage files under `<coverageDir>/<mode>/`; `"none"` writes none; '
        "`output.coverage` says the same"
    ),
    folder=Folder(switchable=True),
    aliases=("output.coverage",),
)
SNAPSHOT_DIR = Key[str](
    "snapshotDir",
    "./.as-test/snapshots",
    read.read_output_dir,
    Doc(
        "where the `.snap` files are read and written; shared by every mode (see "
        "[Snapshots](results.md#snapshots)); `output.snapshots` says the same"
    ),
    aliases=("output.snapshots",),
)
ASCONFIG = Key[str](
    "config",
    DISABLED,
    read.read_asconfig,
    Doc(
        "the asconfig file passed to asc as `--config` (with none, asc reads `./asconfig.json` "
        "by itself when the project has one); it and every file it `extends` are inputs of the "
        "builds"
    ),
)
COVERAGE = Key[CoverageSetting](
    "coverage",
    CoverageSetting(is_object=False, enabled=False),
    read.read_coverage,
    Doc(
        "`true`/`false` or an object: `enabled`, `includeSpecs`, `include`, `exclude`, `ignore` "
        "(`labels`, `names`, `locations`, `snippets`); `mode` (`project` or `all`) and "
        "`dependencies` are checked but not used. See [Coverage](coverage.md)",
        default="`false`",
    ),
    coverage_of_mode,
    parts=(
        "coverage.enabled",
        "coverage.includeSpecs",
        "coverage.include",
        "coverage.exclude",
        "coverage.ignore.labels",
        "coverage.ignore.names",
        "coverage.ignore.locations",
        "coverage.ignore.snippets",
        "coverage.mode",
        "coverage.dependencies",
    ),
)
ENV = Key[dict[str, str]](
    "env",
    {},
    read.read_env,
    Doc(
        "environment for both the build and the run: an object of strings, a list of "
        '`"KEY=value"` strings, or the path of a `.env` file (relative to the config file)'
    ),
    env_of_mode,
)
BUILD_OPTIONS = Section("buildOptions", '{ "args": [], "target": "wasi" }')
BUILD_CMD = Key[str](
    "buildOptions.cmd",
    "",
    read.read_build_cmd,
    Doc(
        "a custom build command instead of asc, with as-test's placeholders `<file>`, `<name>`, "
        "`<outFile>`, `<target>`, `<mode>`; no default flags are added, `buildOptions.args` "
        "follow it, and it is always spawned (never the compile server). Fuzz builds ignore it, "
        "as as-test's do",
        default="",
    ),
)
BUILD_ARGS = Key[tuple[str, ...]](
    "buildOptions.args",
    (),
    read.read_build_args,
    Doc(
        'extra asc arguments, each entry split as a shell would (`"--bindings raw"` is two); a '
        "mode's list is appended to or replaces the base's, depending on the as-test version"
    ),
    args_of_mode,
)
TARGET = Key[Target](
    "buildOptions.target",
    "wasi",
    read.read_target,
    Doc("`wasi`, `bindings` or `web` ([The web target](web.md))"),
)
BUILD_ENV = Key[dict[str, str]](
    "buildOptions.env",
    {},
    read.read_env,
    Doc("environment of the compile only (same forms as `env`)"),
    env_of_mode,
)
FUZZ = Section(
    "fuzz",
    '{ "input": ["./assembly/__fuzz__/*.fuzz.ts"] }',
    Doc(
        "the fuzz campaigns, in the keys below. A mode's `fuzz` keys replace the base's one by "
        "one, for that mode's campaigns and crash records (as `ast fuzz --mode`). See "
        "[Fuzzing](fuzzing.md)",
        "yes (1.0.14+)",
        default="",
    ),
)
FUZZ_INPUT = Key[tuple[str, ...]](
    "fuzz.input",
    ("./assembly/__fuzz__/*.fuzz.ts",),
    read.read_fuzz_input,
    Doc("a glob or a list of globs: the fuzz files", "yes (1.0.14+)"),
)
FUZZ_RUNS = Key[int](
    "fuzz.runs",
    1000,
    read.read_fuzz_runs,
    Doc("how many runs each campaign makes; `--fuzz-runs` wins over it", "yes (1.0.14+)"),
)
FUZZ_SEED = Key[int | None](  # None: a random one
    "fuzz.seed",
    None,
    read.read_fuzz_seed,
    Doc(
        "the seed of the first run (run *i* uses seed + *i*); `--fuzz-seed` wins over it",
        "yes (1.0.14+)",
        default="random",
    ),
)
MAX_INPUT_BYTES = Check(
    "fuzz.maxInputBytes",
    read.check_positive_number,
    Doc("checked (a number greater than zero) but unused", "yes (1.0.14+)"),
)
FUZZ_TARGET = Check(
    "fuzz.target",
    read.choice_check(("bindings",)),
    Doc("checked (only `bindings`) but unused: fuzz builds are for bindings", "yes (1.0.14+)"),
)
CORPUS_DIR = Check(
    "fuzz.corpusDir",
    read.check_path,
    Doc("checked (a path) but unused", "yes (1.0.14+)"),
)
CRASH_DIR = Key[str](
    "fuzz.crashDir",
    "./.as-test/crashes",
    read.read_crash_dir,
    Doc("crash records of specs and campaigns", "yes (1.0.14+)"),
    folder=Folder(shared=True),
)
MODES = Place(
    "modes",
    Doc(
        "named modes: each an object of the keys above and below (plus `default`), or the path "
        "of a config file of its own (relative to the config file); a mode cannot declare modes",
        "",
        default="`{}`",
    ),
)
RUN_OPTIONS = Section("runOptions", '{ "runtime": { "cmd": "wasmtime run <file>" } }')
RUNTIME = Section("runOptions.runtime", '{ "cmd": "wasmtime run <file>" }')
REPORTER = Check(
    "runOptions.reporter",
    read.check_reporter,
    Doc(
        "a name or an object (`name`, `options`, `outDir`, `outFile`): checked and ignored; "
        "from as-test 1.7.0, which removed it, ignored with a warning"
    ),
    parts=(
        "runOptions.reporter.name",
        "runOptions.reporter.options",
        "runOptions.reporter.outDir",
        "runOptions.reporter.outFile",
    ),
)
RUNTIME_CMD = Key[str](  # "" = the default runner for the target (runtime_command.py)
    "runOptions.runtime.cmd",
    "",
    read.read_runtime_cmd,
    Doc(
        "how a spec runs: a Python runner in-process, or any other command as an external "
        "runtime (see [Runners](runners.md)); `runOptions.runtime.run` and the older "
        "`runOptions.run` are read in that order when `cmd` is absent",
        default="the target's default runner",
    ),
    runtime_of_mode,
    aliases=("runOptions.runtime.run", "runOptions.run"),
)
BROWSER = Key[str](  # "" = Chromium
    "runOptions.runtime.browser",
    "",
    read.read_browser,
    Doc(
        "the browser of web modes: a name or a path; `BROWSER` and `--browser` win over it",
        default="the first Chromium on `PATH`",
    ),
)
RUN_ENV = Key[dict[str, str]](
    "runOptions.env",
    {},
    read.read_env,
    Doc(
        "environment of the run only (same forms as `env`): the runner's `os.environ`, and the "
        "WASI environment of the spec"
    ),
    env_of_mode,
)
CACHE = Check(
    "cache",
    read.check_cache,
    Doc(
        "as-test 1.6's build cache: checked (`true`/`false`, `build`, `full`, `reachable`, or "
        '`{ "type", "maxTime" }`) and ignored with a warning, since doit does the caching',
        "no",
    ),
    parts=("cache.type", "cache.maxTime"),
)
FEATURES = Key[tuple[str, ...]](
    "features",
    (),
    read.read_features,
    Doc(
        "`try-as` and asc features (`asc --enable NAME`); `coverage` turns coverage on, with a "
        "warning; part of each build's key",
        "yes (1.3.0+)",
    ),
)
IS_DEFAULT = Key[bool](
    f"{MODE_ONLY}default",
    True,
    read.read_is_default,
    Doc(
        "(1.1.0+) `false` makes a mode manual-only: a plain run skips it, `--mode name` runs it", ""
    ),
)

DECLARATIONS: tuple[Declaration, ...] = (
    SCHEMA,
    INPUT,
    OUTPUT,
    OUT_DIR,
    LOGS,
    COVERAGE_DIR,
    SNAPSHOT_DIR,
    ASCONFIG,
    COVERAGE,
    ENV,
    BUILD_OPTIONS,
    BUILD_CMD,
    BUILD_ARGS,
    TARGET,
    BUILD_ENV,
    FUZZ,
    FUZZ_INPUT,
    FUZZ_RUNS,
    FUZZ_SEED,
    MAX_INPUT_BYTES,
    FUZZ_TARGET,
    CORPUS_DIR,
    CRASH_DIR,
    MODES,
    RUN_OPTIONS,
    RUNTIME,
    REPORTER,
    RUNTIME_CMD,
    BROWSER,
    RUN_ENV,
    CACHE,
    FEATURES,
    IS_DEFAULT,
)

# Reading order: a config with several problems reports the first of these that finds one.
READ_ORDER: tuple[Key[Any] | Check, ...] = (
    IS_DEFAULT,
    SCHEMA,
    INPUT,
    OUT_DIR,
    LOGS,
    COVERAGE_DIR,
    SNAPSHOT_DIR,
    ASCONFIG,
    CACHE,
    COVERAGE,
    FEATURES,
    ENV,
    BUILD_CMD,
    BUILD_ARGS,
    TARGET,
    BUILD_ENV,
    FUZZ_INPUT,
    FUZZ_RUNS,
    FUZZ_SEED,
    MAX_INPUT_BYTES,
    FUZZ_TARGET,
    CORPUS_DIR,
    CRASH_DIR,
    RUNTIME_CMD,
    BROWSER,
    REPORTER,
    RUN_ENV,
)
KEYS: tuple[Key[Any], ...] = tuple(entry for entry in READ_ORDER if isinstance(entry, Key))

# Keys of as-test's format we accept but never act on, each with the reason. Every Check's
# place is here, and every key of as-test 1.8's own schema is a declared place above or here
# (tests/config/test_keys.py).
UNSUPPORTED: dict[str, str] = {
    "$schema": "names the schema for editors; nothing to run",
    "cache": "as-test's build cache; doit's own up-to-date checks take its place",
    "cache.type": "as-test's build cache; doit's own up-to-date checks take its place",
    "cache.maxTime": "as-test's build cache; doit's own up-to-date checks take its place",
    "coverage.mode": "which files as-test's report lists; our coverage files list every point",
    "coverage.dependencies": "as-test's coverage of packages; validated only",
    "fuzz.target": "fuzz builds are always for bindings, as as-test builds them",
    "fuzz.maxInputBytes": "validated only: our fuzz runs do not use it",
    "fuzz.corpusDir": "validated only: our fuzz runs keep no corpus",
    "runOptions.reporter": "as-test's reporter modules (removed in 1.7.0); our reports are doit's",
    "runOptions.reporter.name": "part of runOptions.reporter",
    "runOptions.reporter.options": "part of runOptions.reporter",
    "runOptions.reporter.outDir": "part of runOptions.reporter",
    "runOptions.reporter.outFile": "part of runOptions.reporter",
}


# --------------------------------------------------------------------------------------------
# What the declarations say about the format


def places(declaration: Declaration) -> tuple[str, ...]:
    """Every place a declaration names: its own, its aliases', its parts'."""
    if isinstance(declaration, Key | Check):
        return (declaration.at, *declaration.aliases, *declaration.parts)
    return (declaration.at,)


def _known_keys() -> dict[str, tuple[str, ...]]:
    """The keys each object may hold, by the object's path ("modes.*" a mode), in the order they
    first appear in ``DECLARATIONS``."""
    known: dict[str, dict[str, None]] = {"": {}}
    for declaration in DECLARATIONS:
        for place in places(declaration):
            parts = place.split(".")
            for end in range(1, len(parts) + 1):
                known.setdefault(".".join(parts[: end - 1]), {})[parts[end - 1]] = None
    mode_only = known.pop(MODE_ONLY.rstrip("."), {})
    known.pop("modes", None)  # its only key is "*", the mode's name
    # A mode holds what the top level does, but no modes of its own, and its own keys after.
    mode = (*(name for name in known[""] if name != "modes"), *mode_only)
    return {parent: tuple(names) for parent, names in known.items()} | {"modes.*": mode}


FORMAT = Format(
    known=_known_keys(),
    examples={entry.at: entry.example for entry in DECLARATIONS if isinstance(entry, Section)},
    aliases={
        alias: entry.at
        for entry in DECLARATIONS
        if isinstance(entry, Key)
        for alias in entry.aliases
    },
)
