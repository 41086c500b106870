"""Load ``as-test.config.json`` into one resolved settings object per mode.

The format is as-test's (``AS-TEST-HOST.md`` §1), read with the rules of the as-test the project
has installed (``as_test_rules.py``): which keys exist, and how a mode merges onto the base config
(as that release's ``applyMode`` does). Values are checked with as-test's rules. Where as-test
collects every problem, we stop at the first one and raise a ``ConfigError`` naming the file, the
``$.field`` and a fix. Unknown keys are not errors here: each becomes a warning line in
``ProjectConfig.warnings``; so does a key the installed as-test lacks but whose later meaning is
safe to follow, while one that would change what is built or run (``features``,
``modes.*.default``) is an error naming the release that brought it.

Paths stay strings in posix form, as the user wrote them (normalised), relative to the project
root unless absolute. The only paths resolved against the config file's directory are ``.env``
files and string-valued modes, as in as-test. A JSON ``null`` counts as "key not set".
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypeVar

from astest_tasks.config import as_test_rules
from astest_tasks.config.as_test_rules import MODE_NAME_ENV_VAR, AsTestRules
from astest_tasks.config.as_test_version import NEWEST_TESTED as NEWEST_AS_TEST
from astest_tasks.config.as_test_version import installed_version
from astest_tasks.config.asc_flags import TRY_AS
from astest_tasks.config.envfile import DotenvError, parse_dotenv
from astest_tasks.config.mode_hint import add_mode_fix
from astest_tasks.core.errors import ConfigError
from astest_tasks.coverage.rules import CoverageRules

Target = Literal["wasi", "bindings", "web"]

DEFAULT_MODE_NAME = "default"
COVERAGE_ENV_VAR = "AS_TEST_COVERAGE_ENABLED"

_DISABLED = "none"  # "logs", "coverageDir" and "config" use this word to switch themselves off
_MAX_SUGGESTION_DISTANCE = 3

# Keys some as-test release accepts, per object: the union, so no key is "unknown" for one
# version and known for another. Which of them the installed version has is checked where
# each is read ("features", "cache", "reporter", the later mode keys).
_TOP_LEVEL_KEYS = (
    "$schema",
    "input",
    "output",
    "outDir",
    "logs",
    "coverageDir",
    "snapshotDir",
    "config",
    "coverage",
    "env",
    "buildOptions",
    "fuzz",
    "modes",
    "runOptions",
    "cache",
    "features",
)
_MODE_KEYS = (*(key for key in _TOP_LEVEL_KEYS if key != "modes"), "default")
_OUTPUT_KEYS = ("build", "logs", "coverage", "snapshots")
_BUILD_OPTION_KEYS = ("cmd", "args", "target", "env")
_RUN_OPTION_KEYS = ("runtime", "reporter", "run", "env")
_RUNTIME_KEYS = ("cmd", "run", "browser")
_REPORTER_KEYS = ("name", "options", "outDir", "outFile")
_FUZZ_KEYS = ("input", "runs", "seed", "maxInputBytes", "target", "corpusDir", "crashDir")
_COVERAGE_KEYS = ("enabled", "includeSpecs", "include", "exclude", "ignore", "mode", "dependencies")
_COVERAGE_IGNORE_KEYS = ("labels", "names", "locations", "snippets")
_CACHE_KEYS = ("type", "maxTime")

_CACHE_TYPES = ("build", "full", "reachable")
_COVERAGE_FEATURE = "coverage"
_COVERAGE_MODES = ("project", "all")
_DURATION = re.compile(r"^\s*\d+(?:\.\d+)?\s*(?:ms|s|m|h|d)\s*$")
_TARGET_FIX = 'set "target" to "wasi", "bindings" or "web"'
_SPEC_GLOB = '"./assembly/__tests__/*.spec.ts"'
# The "output" alias: legacy key -> its key in an "output" object, which is also its subfolder
# of a string "output" root ("output": "R" means outDir "R/build", logs "R/logs", ...).
_OUTPUT_ALIAS = {
    "outDir": "build",
    "logs": "logs",
    "coverageDir": "coverage",
    "snapshotDir": "snapshots",
}

JsonObject = dict[str, object]


@dataclass(frozen=True)
class ModeSettings:
    """Everything needed to build and run the specs of one mode, already merged and suffixed."""

    name: str
    target: Target
    input_patterns: tuple[str, ...]
    out_dir: str
    logs_dir: str | None
    coverage_dir: str | None
    snapshot_dir: str
    crash_dir: str
    asconfig: str | None
    build_args: tuple[str, ...]
    build_cmd: str
    coverage_enabled: bool
    env: Mapping[str, str]
    build_env: Mapping[str, str]
    run_env: Mapping[str, str]
    runtime_cmd: str
    browser: str  # runOptions.runtime.browser: web modes only; "" = the default Chromium
    is_default: bool
    coverage_rules: CoverageRules = field(default_factory=CoverageRules)  # when coverage is on
    # as-test 1.3+ "features": asc features (--enable NAME) and "try-as"; part of the build key.
    features: tuple[str, ...] = ()


@dataclass(frozen=True)
class FuzzSettings:
    """The config's ``fuzz`` block (as-test 1.0.7's defaults), shared by every mode.

    ``seed`` is None unless the config pins one: a campaign then draws a random seed, as
    as-test 1.1.0 does (1.0.7 fell back to 1337, so every campaign tried the same inputs).
    """

    input_patterns: tuple[str, ...] = ("./assembly/__fuzz__/*.fuzz.ts",)
    runs: int = 1000
    seed: int | None = None
    explicit_input: bool = False  # the config names the files: finding none is worth a warning


@dataclass(frozen=True)
class ProjectConfig:
    path: Path
    exists: bool
    base: ModeSettings
    modes: Mapping[str, ModeSettings]
    warnings: tuple[str, ...]
    fuzz: FuzzSettings = FuzzSettings()
    rules: AsTestRules = field(default_factory=lambda: AsTestRules.for_version(None))


# --------------------------------------------------------------------------------------------
# Internal model: a layer is what one JSON object (the base config or one mode) says, with None
# for "not present"; values are a layer resolved over the defaults or over the base config.


@dataclass(frozen=True)
class _Coverage:
    """``coverage`` as written: a boolean, or an object whose ``enabled`` may be absent (None)."""

    is_object: bool
    enabled: bool | None
    # The point filters, None where the object does not set them (a mode inherits those).
    include_specs: bool | None = None
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    ignore: dict[str, tuple[str, ...]] | None = None  # only the ignore.* lists present

    @property
    def rules(self) -> CoverageRules:
        ignore = self.ignore or {}
        return CoverageRules(
            include_specs=bool(self.include_specs),
            include=self.include or (),
            exclude=self.exclude or (),
            ignore_labels=ignore.get("labels", ()),
            ignore_names=ignore.get("names", ()),
            ignore_locations=ignore.get("locations", ()),
            ignore_snippets=ignore.get("snippets", ()),
        )

    @property
    def enabled_for_build(self) -> bool:
        # as-test 1.1.0's build treats an object without "enabled" as enabled; a boolean is
        # never None, so this reads the boolean form correctly too.
        return self.enabled is not False


@dataclass
class _Layer:
    """What one config object sets; the directories are as written, before any mode suffix."""

    input_patterns: tuple[str, ...] | None = None
    out_dir: str | None = None
    logs: str | None = None
    coverage_dir: str | None = None
    snapshot_dir: str | None = None
    crash_dir: str | None = None
    asconfig: str | None = None
    coverage: _Coverage | None = None
    env: dict[str, str] | None = None
    build_env: dict[str, str] | None = None
    run_env: dict[str, str] | None = None
    build_cmd: str | None = None
    build_args: tuple[str, ...] | None = None
    target: Target | None = None
    runtime_cmd: str | None = None  # "" = present but empty: the default runner for the target
    browser: str | None = None
    is_default: bool | None = None
    features: tuple[str, ...] | None = None


@dataclass(frozen=True)
class _Values:
    """A complete set of settings, before the per-mode directory suffixes are applied."""

    input_patterns: tuple[str, ...]
    out_dir: str
    logs: str
    coverage_dir: str
    snapshot_dir: str
    crash_dir: str
    asconfig: str
    coverage: _Coverage
    env: dict[str, str]
    build_env: dict[str, str]
    run_env: dict[str, str]
    build_cmd: str
    build_args: tuple[str, ...]
    target: Target
    runtime_cmd: str
    browser: str
    is_default: bool
    features: tuple[str, ...] = ()


_DEFAULTS = _Values(
    input_patterns=("./assembly/__tests__/*.spec.ts",),
    out_dir="./.as-test/build",
    logs="./.as-test/logs",
    coverage_dir="./.as-test/coverage",
    snapshot_dir="./.as-test/snapshots",
    crash_dir="./.as-test/crashes",
    asconfig=_DISABLED,
    coverage=_Coverage(is_object=False, enabled=False),
    env={},
    build_env={},
    run_env={},
    build_cmd="",
    build_args=(),
    target="wasi",
    runtime_cmd="",
    browser="",
    is_default=True,
)


@dataclass
class _Source:
    """One JSON file being read: where messages point, and where its relative files live."""

    display: str
    directory: Path
    project_root: Path
    warnings: list[str]
    rules: AsTestRules

    def error(self, field: str, problem: str, fix: str) -> ConfigError:
        return ConfigError(self.display, field, problem, fix)

    def too_old(self, field: str, release: str, fix: str) -> ConfigError:
        """A key the installed as-test rejects: it came with a later release."""
        return self.error(
            field,
            f"needs as-test {release} or newer, and this project has as-test "
            f"{self.rules.version}, which rejects the key",
            f"{fix}, or upgrade with `npm install --save-dev as-test@{NEWEST_AS_TEST}`",
        )

    def warn_too_old(self, field: str, release: str, fix: str) -> None:
        """A key the installed as-test rejects, but whose later meaning we can follow safely."""
        self.warnings.append(
            f"{self.display}: {field} needs as-test {release} or newer (this project has as-test "
            f"{self.rules.version}, whose own CLI rejects this config); astest-tasks follows "
            f"{release}'s meaning; fix: {fix}, or upgrade with "
            f"`npm install --save-dev as-test@{NEWEST_AS_TEST}`"
        )

    def warn_unknown_keys(self, obj: JsonObject, known: Sequence[str], prefix: str) -> None:
        for key in obj:
            if key not in known:
                self.warnings.append(
                    _unknown_key_warning(self.display, f"{prefix}.{key}", key, known)
                )


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
    source = _Source(_display_path(path, root), path.parent, root, [], rules)
    if not path.exists():
        return ProjectConfig(path, False, _base_settings(_DEFAULTS, rules), {}, (), rules=rules)
    raw = _read_json_object(source, path)
    source.warn_unknown_keys(raw, _TOP_LEVEL_KEYS, "$")
    base_values = _resolve_base(_read_layer(source, raw, "$"))
    modes = _read_modes(source, raw.get("modes"), base_values)
    base = _base_settings(base_values, rules)
    fuzz = _fuzz_settings(raw.get("fuzz"))
    return ProjectConfig(path, True, base, modes, tuple(source.warnings), fuzz, rules)


def select_modes(config: ProjectConfig, requested: Sequence[str] = ()) -> list[ModeSettings]:
    """The modes to run, following the installed as-test.

    With names (each may be a comma list): exactly those, in order, where ``"default"`` means the
    base config. With none, as-test's plain run: the base config when no mode is declared;
    otherwise every declared mode before 1.1.0, the base config plus the modes whose
    ``default`` is not false in 1.1.0 to 1.1.6, and only those modes from 1.1.7 on. When every
    declared mode has ``"default": false`` that selects nothing, as in as-test; the caller
    decides how to report it.
    """
    names = _split_mode_names(requested)
    if names:
        return [_find_mode(config, name) for name in names]
    if not config.modes:
        return [config.base]
    chosen = [mode for mode in config.modes.values() if mode.is_default]
    return [config.base, *chosen] if config.rules.base_runs_with_modes else chosen


def _split_mode_names(requested: Sequence[str]) -> list[str]:
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
    suggestion = _closest(name, list(config.modes))
    hint = f' (did you mean "{suggestion}"?)' if suggestion else ""
    where = _display_path(config.path, Path.cwd())
    fix = add_mode_fix(name, where, list(config.modes), config.base.target)
    raise ConfigError(where, "mode", f'unknown mode "{name}"{hint}', fix)


# --------------------------------------------------------------------------------------------
# Reading files


def _read_json_object(source: _Source, path: Path) -> JsonObject:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise source.error(
            "", f"cannot read the file: {exc}", "make it a readable UTF-8 file"
        ) from None
    try:
        parsed: object = json.loads(text, parse_constant=_reject_json_constant)
    except ValueError as exc:
        raise source.error("", f"invalid JSON: {exc}", "correct the JSON syntax") from None
    if not isinstance(parsed, dict):
        raise source.error(
            "$",
            f"the root value must be an object, got {_describe(parsed)}",
            'wrap the settings in an object, e.g. { "input": ["./assembly/__tests__/*.spec.ts"] }',
        )
    return parsed


def _reject_json_constant(name: str) -> object:
    # Python's json accepts NaN and Infinity; JSON (and as-test's JSON.parse) does not.
    raise ValueError(f"{name} is not valid JSON")


def _display_path(path: Path, root: Path) -> str:
    """The path relative to the project root when inside it, else absolute; for messages."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


# --------------------------------------------------------------------------------------------
# One JSON object (base config or mode) -> _Layer


def _read_layer(source: _Source, raw: JsonObject, prefix: str) -> _Layer:
    """Check every field of a config object and collect the ones it sets."""
    layer = _Layer()
    _check_string(source, raw.get("$schema"), f"{prefix}.$schema")
    layer.input_patterns = _read_input(source, raw.get("input"), f"{prefix}.input")
    _read_output_dirs(source, raw, prefix, layer)
    layer.asconfig = _read_path(source, raw.get("config"), f"{prefix}.config")
    _check_cache(source, raw.get("cache"), f"{prefix}.cache")
    layer.coverage = _read_coverage(source, raw.get("coverage"), f"{prefix}.coverage")
    layer.features = _read_features(source, raw.get("features"), f"{prefix}.features")
    if layer.features is not None and _COVERAGE_FEATURE in layer.features:
        layer.features = tuple(name for name in layer.features if name != _COVERAGE_FEATURE)
        layer.coverage = _coverage_feature(source, layer.coverage, f"{prefix}.features")
    layer.env = _read_env(source, raw.get("env"), f"{prefix}.env")
    _read_build_options(source, raw.get("buildOptions"), f"{prefix}.buildOptions", layer)
    layer.crash_dir = _read_fuzz(source, raw.get("fuzz"), f"{prefix}.fuzz")
    _read_run_options(source, raw.get("runOptions"), f"{prefix}.runOptions", layer)
    return layer


def _read_input(source: _Source, value: object, field: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        if not value:
            raise source.error(field, "must not be empty", "set it to a glob such as " + _SPEC_GLOB)
        return (value,)
    if not isinstance(value, list):
        raise source.error(
            field,
            f"must be a string or an array of strings, got {_describe(value)}",
            f'write it as "input": [{_SPEC_GLOB}]',
        )
    return _non_empty_strings(source, value, field, "replace it with a glob such as " + _SPEC_GLOB)


def _read_output_dirs(source: _Source, raw: JsonObject, prefix: str, layer: _Layer) -> None:
    """Apply the ``output`` alias, then the legacy keys, which win over it (as in as-test).

    Unlike as-test, a *mode's* string ``output`` is honoured too (as-test parses it and then
    ignores it, a quirk listed in AS-TEST-HOST.md §13).
    """
    alias = _read_output_alias(source, raw.get("output"), f"{prefix}.output")
    own = {key: _read_path(source, raw.get(key), f"{prefix}.{key}") for key in _OUTPUT_ALIAS}
    layer.out_dir = own["outDir"] or alias.get("outDir")
    layer.logs = own["logs"] or alias.get("logs")
    layer.coverage_dir = own["coverageDir"] or alias.get("coverageDir")
    layer.snapshot_dir = own["snapshotDir"] or alias.get("snapshotDir")


def _read_output_alias(source: _Source, value: object, field: str) -> dict[str, str]:
    """The legacy keys an ``output`` value stands for."""
    if value is None:
        return {}
    if isinstance(value, str):
        root = _read_path(source, value, field)
        assert root is not None  # a string is never "absent"
        return {key: posixpath.join(root, sub) for key, sub in _OUTPUT_ALIAS.items()}
    if not isinstance(value, dict):
        raise source.error(
            field,
            f"must be a string or an object, got {_describe(value)}",
            'write it as "output": "./.as-test/" or "output": { "build": "./.as-test/build" }',
        )
    source.warn_unknown_keys(value, _OUTPUT_KEYS, field)
    resolved: dict[str, str] = {}
    for legacy_key, alias_key in _OUTPUT_ALIAS.items():
        path = _read_path(source, value.get(alias_key), f"{field}.{alias_key}")
        if path is not None:
            resolved[legacy_key] = path
    return resolved


def _read_coverage(source: _Source, value: object, field: str) -> _Coverage | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return _Coverage(is_object=False, enabled=value)
    if not isinstance(value, dict):
        raise source.error(
            field,
            f"must be a boolean or an object, got {_describe(value)}",
            'use true, false or { "enabled": true, "include": ["assembly/**/*.ts"] }',
        )
    source.warn_unknown_keys(value, _COVERAGE_KEYS, field)
    enabled = _read_bool(source, value.get("enabled"), f"{field}.enabled")
    include_specs = _read_bool(source, value.get("includeSpecs"), f"{field}.includeSpecs")
    _check_choice(source, value.get("mode"), f"{field}.mode", _COVERAGE_MODES)
    _check_string_list(source, value.get("dependencies"), f"{field}.dependencies")
    return _Coverage(
        is_object=True,
        enabled=enabled,
        include_specs=include_specs,
        include=_read_string_list(source, value.get("include"), f"{field}.include"),
        exclude=_read_string_list(source, value.get("exclude"), f"{field}.exclude"),
        ignore=_read_coverage_ignore(source, value.get("ignore"), f"{field}.ignore"),
    )


def _read_coverage_ignore(
    source: _Source, value: object, field: str
) -> dict[str, tuple[str, ...]] | None:
    if value is None:
        return None
    ignore = _expect_object(source, value, field, '{ "labels": ["Call"], "names": ["panic"] }')
    source.warn_unknown_keys(ignore, _COVERAGE_IGNORE_KEYS, field)
    lists = {
        key: _read_string_list(source, ignore.get(key), f"{field}.{key}")
        for key in _COVERAGE_IGNORE_KEYS
    }
    return {key: patterns for key, patterns in lists.items() if patterns is not None}


def _read_string_list(source: _Source, value: object, field: str) -> tuple[str, ...] | None:
    _check_string_list(source, value, field)
    if not isinstance(value, list):
        return None
    return tuple(item for item in value if isinstance(item, str))


def _read_build_options(source: _Source, value: object, field: str, layer: _Layer) -> None:
    if value is None:
        return
    options = _expect_object(source, value, field, '{ "args": [], "target": "wasi" }')
    source.warn_unknown_keys(options, _BUILD_OPTION_KEYS, field)
    layer.build_cmd = _check_string(source, options.get("cmd"), f"{field}.cmd")
    layer.build_args = _read_build_args(source, options.get("args"), f"{field}.args")
    layer.target = _read_target(source, options.get("target"), f"{field}.target")
    layer.build_env = _read_env(source, options.get("env"), f"{field}.env")


def _read_build_args(source: _Source, value: object, field: str) -> tuple[str, ...] | None:
    """Shell-tokenize each entry, as as-test does: ``"--bindings raw"`` is two arguments."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise source.error(
            field,
            f"must be an array of strings, got {_describe(value)}",
            'write it as "args": ["--optimize"]',
        )
    tokens: list[str] = []
    for index, entry in enumerate(value):
        if not isinstance(entry, str):
            raise source.error(
                f"{field}[{index}]", f"must be a string, got {_describe(entry)}", "quote it"
            )
        try:
            tokens.extend(shlex.split(entry))
        except ValueError as exc:
            raise source.error(
                f"{field}[{index}]",
                f"cannot be split into arguments ({exc})",
                "close the quote or escape it with a backslash",
            ) from None
    return tuple(tokens)


def _read_target(source: _Source, value: object, field: str) -> Target | None:
    if value is None:
        return None
    if value == "wasi":
        return "wasi"
    if value == "bindings":
        return "bindings"
    if value == "web":
        return "web"
    raise source.error(
        field, f'must be "wasi", "bindings" or "web", got {_describe(value)}', _TARGET_FIX
    )


def _read_run_options(source: _Source, value: object, field: str, layer: _Layer) -> None:
    if value is None:
        return
    options = _expect_object(
        source, value, field, '{ "runtime": { "cmd": "wasmtime run <file>" } }'
    )
    source.warn_unknown_keys(options, _RUN_OPTION_KEYS, field)
    legacy_run = _check_string(source, options.get("run"), f"{field}.run")
    runtime_cmd, runtime_run, browser = _read_runtime(
        source, options.get("runtime"), f"{field}.runtime"
    )
    if browser is not None:
        layer.browser = browser
    _check_reporter(source, options.get("reporter"), f"{field}.reporter")
    layer.run_env = _read_env(source, options.get("env"), f"{field}.env")
    if runtime_cmd is None and runtime_run is None and legacy_run is None:
        return
    # Precedence runtime.cmd > runtime.run > run; an empty string falls through, and when all are
    # empty the default runner applies ("" here), as in as-test's parseConfigRaw.
    layer.runtime_cmd = runtime_cmd or runtime_run or legacy_run or ""


def _read_runtime(
    source: _Source, value: object, field: str
) -> tuple[str | None, str | None, str | None]:
    """``cmd``, ``run`` and ``browser`` (which only web modes use) as written, or None."""
    if value is None:
        return None, None, None
    runtime = _expect_object(source, value, field, '{ "cmd": "wasmtime run <file>" }')
    source.warn_unknown_keys(runtime, _RUNTIME_KEYS, field)
    browser = _check_string(source, runtime.get("browser"), f"{field}.browser")
    cmd = _check_string(source, runtime.get("cmd"), f"{field}.cmd")
    return cmd, _check_string(source, runtime.get("run"), f"{field}.run"), browser


def _check_reporter(source: _Source, value: object, field: str) -> None:
    """as-test 1.1.0's reporter setting: accepted so 1.1.0 configs load, otherwise ignored."""
    if value is None:
        return
    if not source.rules.reporter:
        source.warnings.append(
            f"{source.display}: {field} was removed in as-test {as_test_rules.REPORTER_REMOVED} "
            f"(this project has {source.rules.version}, which rejects it) and is ignored; fix: "
            'remove "reporter"'
        )
    if isinstance(value, str):
        return
    reporter = _expect_object(source, value, field, '"default"')
    source.warn_unknown_keys(reporter, _REPORTER_KEYS, field)


def _read_fuzz(source: _Source, value: object, field: str) -> str | None:
    """Check the fuzz section; only ``crashDir`` matters to us (test crash records go there)."""
    if value is None:
        return None
    fuzz = _expect_object(source, value, field, '{ "input": ["./assembly/__fuzz__/*.fuzz.ts"] }')
    source.warn_unknown_keys(fuzz, _FUZZ_KEYS, field)
    _read_input(source, fuzz.get("input"), f"{field}.input")
    _check_number(source, fuzz.get("runs"), f"{field}.runs", allow_zero=False)
    _check_number(source, fuzz.get("seed"), f"{field}.seed", allow_zero=True)
    _check_number(source, fuzz.get("maxInputBytes"), f"{field}.maxInputBytes", allow_zero=False)
    _check_choice(source, fuzz.get("target"), f"{field}.target", ("bindings",))
    _read_path(source, fuzz.get("corpusDir"), f"{field}.corpusDir")
    return _read_path(source, fuzz.get("crashDir"), f"{field}.crashDir")


def _fuzz_settings(value: object) -> FuzzSettings:
    """The base config's ``fuzz`` block, already checked by ``_read_fuzz``."""
    if not isinstance(value, dict):
        return FuzzSettings()
    defaults = FuzzSettings()
    patterns = value.get("input")
    if isinstance(patterns, str):
        patterns = [patterns]
    runs, seed = value.get("runs"), value.get("seed")
    return FuzzSettings(
        input_patterns=tuple(patterns) if isinstance(patterns, list) else defaults.input_patterns,
        runs=max(1, round(runs)) if isinstance(runs, int | float) else defaults.runs,
        seed=int(seed) if isinstance(seed, int | float) and not isinstance(seed, bool) else None,
        explicit_input=patterns is not None,
    )


def _check_cache(source: _Source, value: object, field: str) -> None:
    """as-test 1.6's ``cache`` setting: checked so typos surface; doit does our caching."""
    if value is None:
        return
    if source.rules.cache:
        source.warnings.append(
            f"{source.display}: {field} is as-test's own build cache; astest-tasks caches every "
            "build and run with doit whatever it says, so it changes nothing here"
        )
    else:
        source.warnings.append(
            f"{source.display}: {field} needs as-test {as_test_rules.CACHE} or newer (this "
            f"project has as-test {source.rules.version}, which rejects it); astest-tasks "
            'caches with doit anyway; fix: remove "cache"'
        )
    if isinstance(value, bool) or value in _CACHE_TYPES:
        return
    if not isinstance(value, dict):
        raise source.error(
            field,
            f'must be a boolean, "build", "full", "reachable" or an object, got {_describe(value)}',
            'use false, true, "build", "full" or { "type": "full", "maxTime": "1h" }',
        )
    source.warn_unknown_keys(value, _CACHE_KEYS, field)
    _check_choice(source, value.get("type"), f"{field}.type", _CACHE_TYPES)
    max_time = value.get("maxTime")
    if max_time is not None and not (isinstance(max_time, str) and _DURATION.match(max_time)):
        raise source.error(
            f"{field}.maxTime",
            f'must be a duration like "90s", "30m", "1h" or "7d", got {_describe(max_time)}',
            "use a number followed by ms, s, m, h or d",
        )


def _read_features(source: _Source, value: object, field: str) -> tuple[str, ...] | None:
    """as-test 1.3's ``features``: names as as-test normalises them, in order, without repeats.

    ``try-as`` wires up the try-as transform; any other name becomes ``asc --enable NAME``.
    """
    if value is None:
        return None
    if not source.rules.features:
        raise source.too_old(
            field,
            as_test_rules.FEATURES,
            'list asc features in "buildOptions": { "args": ["--enable simd"] } instead',
        )
    if not isinstance(value, list):
        raise source.error(
            field,
            f"must be an array of feature names, got {_describe(value)}",
            'write it as "features": ["simd"]',
        )
    for index, item in enumerate(value):
        if not (isinstance(item, str) and item.strip()):
            raise source.error(
                f"{field}[{index}]",
                f"must be a non-empty string, got {_describe(item)}",
                'use a feature name such as "simd"',
            )
    names: dict[str, None] = {}
    for item in value:
        if isinstance(item, str):
            names.setdefault(normalise_feature(item))
    return tuple(names)


def normalise_feature(name: str) -> str:
    """as-test's ``normalizeFeatureName``: trimmed, lower case, ``try_as``/``tryas`` = try-as."""
    word = name.strip().lower()
    return TRY_AS if word in ("try_as", "tryas") else word


def _coverage_feature(source: _Source, coverage: _Coverage | None, field: str) -> _Coverage:
    """``"features": ["coverage"]`` means coverage on, as ``--enable coverage`` does.

    as-test 1.8 would pass it to asc as ``--enable coverage``, which asc rejects, failing every
    build; the intent is plain, so we follow it and say how to write it.
    """
    source.warnings.append(
        f'{source.display}: {field} "coverage" turns coverage on here, but as-test passes it to '
        'asc as --enable coverage, which fails every build; fix: write "coverage": true instead'
    )
    if coverage is not None and coverage.is_object:
        return replace(coverage, enabled=True)
    return _Coverage(is_object=False, enabled=True)


# --------------------------------------------------------------------------------------------
# env: a .env path (relative to the file that names it), ["K=V", ...] or {"K": "V"}


def _read_env(source: _Source, value: object, field: str) -> dict[str, str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return _read_env_file(source, value, field)
    if isinstance(value, list):
        return _read_env_entries(source, value, field)
    if isinstance(value, dict):
        return _read_env_object(source, value, field)
    raise source.error(
        field,
        "must be a .env file path, an array of KEY=value strings or an object of strings, "
        f"got {_describe(value)}",
        'write it as "env": { "MY_FLAG": "1" }',
    )


def _read_env_file(source: _Source, value: str, field: str) -> dict[str, str]:
    if not value:
        raise source.error(field, "must not be empty", 'name a .env file, e.g. "./.env.test"')
    env_path = Path(os.path.abspath(source.directory / value))
    shown = _display_path(env_path, source.project_root)
    if not env_path.is_file():
        raise source.error(
            field,
            f"env file not found: {shown}",
            f"create {shown} or correct the path (it is relative to {source.display})",
        )
    try:
        return parse_dotenv(env_path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        raise source.error(
            field, f"cannot read {shown}: {exc}", "make it a readable UTF-8 file"
        ) from None
    except DotenvError as exc:
        raise source.error(
            field,
            f"{shown} line {exc.line_number}: {exc.reason}",
            "write each line as KEY=VALUE (or a # comment)",
        ) from None


def _read_env_entries(source: _Source, value: list[object], field: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for index, item in enumerate(value):
        key, separator, rest = item.partition("=") if isinstance(item, str) else ("", "", "")
        if not separator or not key.strip():
            raise source.error(
                f"{field}[{index}]",
                f'must be a "KEY=value" string, got {_describe(item)}',
                'write it as "MY_FLAG=1"',
            )
        env[key.strip()] = rest
    return env


def _read_env_object(source: _Source, value: JsonObject, field: str) -> dict[str, str]:
    for key, item in value.items():
        if not isinstance(item, str):
            raise source.error(
                f"{field}.{key}",
                f"must be a string, got {_describe(item)}",
                f'quote the value: "{key}": "{_plain(item)}"',
            )
    return {key: item for key, item in value.items() if isinstance(item, str)}


# --------------------------------------------------------------------------------------------
# Modes


def _read_modes(source: _Source, value: object, base: _Values) -> dict[str, ModeSettings]:
    if value is None:
        return {}
    declared = _expect_object(source, value, "$.modes", '{ "wasmtime": { "default": false } }')
    modes: dict[str, ModeSettings] = {}
    for name, mode_raw in declared.items():
        field = f"$.modes.{name}"
        _check_mode_name(source, name, field)
        layer = _read_mode_layer(source, name, mode_raw, field)
        modes[name] = _mode_settings(name, base, layer, source.rules)
    return modes


def _check_mode_name(source: _Source, name: str, field: str) -> None:
    if name == DEFAULT_MODE_NAME:
        raise source.error(
            field,
            '"default" is reserved: it selects the base config',
            'rename the mode, e.g. to "node:wasi"',
        )
    # The name becomes a directory under outDir and is matched after comma-splitting and
    # trimming, so a name these would mangle could never be selected or would escape outDir.
    unusable = name != name.strip() or name in ("", ".", "..") or any(c in name for c in "/\\,")
    if unusable:
        raise source.error(
            field,
            f"mode name {json.dumps(name)} cannot be used as a directory name and selector",
            'use a name without "/", "\\", ",", surrounding spaces, and not "." or ".."',
        )


def _read_mode_layer(source: _Source, name: str, value: object, field: str) -> _Layer:
    if isinstance(value, str):
        return _read_mode_file(source, name, value, field)
    if not isinstance(value, dict):
        raise source.error(
            field,
            f"must be a config object or a config file path, got {_describe(value)}",
            f'write it as "{name}": {{ "buildOptions": {{ "target": "wasi" }} }} '
            f'or "{name}": "./as-test.{name}.config.json"',
        )
    if value.get("modes") is not None:
        raise source.error(
            f"{field}.modes", "a mode cannot declare nested modes", "move these modes to $.modes"
        )
    _check_mode_keys_exist(source, value, field)
    source.warn_unknown_keys(value, _MODE_KEYS, field)
    is_default = _read_bool(source, value.get("default"), f"{field}.default")
    layer = _read_layer(source, value, field)
    layer.is_default = is_default
    return layer


# as-test 1.0.7 to 1.0.13 know these mode keys only: outDir, logs, coverageDir, snapshotDir,
# config, coverage, buildOptions, runOptions, env. The others came with these releases. The 1.0.14
# ones only say where a mode's own files are, with one meaning ever since: under an older as-test
# they are honoured with a warning. "default" and "features" change which modes run and what asc
# builds, so under an as-test without them they stop the run: the author must choose.
_WARNED_MODE_KEYS = ("input", "output", "fuzz", "$schema")
_LATER_MODE_KEYS = {
    "input": (as_test_rules.MODES_ARE_FULL_CONFIGS, 'set "input" in the base config'),
    "output": (as_test_rules.MODES_ARE_FULL_CONFIGS, 'use "outDir", "logs" or "coverageDir"'),
    "fuzz": (as_test_rules.MODES_ARE_FULL_CONFIGS, 'set "fuzz" in the base config'),
    "$schema": (as_test_rules.MODES_ARE_FULL_CONFIGS, 'remove "$schema" from the mode'),
    "default": (
        as_test_rules.MODE_DEFAULT_FLAG,
        'remove "default" (every mode runs), or move the mode to a config of its own',
    ),
    "features": (
        as_test_rules.FEATURES,
        'add the features to the mode\'s "buildOptions": { "args": ["--enable simd"] }',
    ),
}


def _check_mode_keys_exist(source: _Source, value: JsonObject, field: str) -> None:
    """A mode key the installed as-test rejects: a warning or an error (see _LATER_MODE_KEYS)."""
    for key, (release, fix) in _LATER_MODE_KEYS.items():
        if key not in value or source.rules.at_least(release):
            continue
        if key in _WARNED_MODE_KEYS:
            source.warn_too_old(f"{field}.{key}", release, fix)
        else:
            raise source.too_old(f"{field}.{key}", release, fix)


def _read_mode_file(source: _Source, name: str, value: str, field: str) -> _Layer:
    """A string mode: another config file, relative to this one's directory, without modes."""
    if not source.rules.modes_are_full_configs:
        source.warn_too_old(
            field,
            as_test_rules.MODES_ARE_FULL_CONFIGS,
            f'write the mode inline: "{name}": {{ "buildOptions": {{ ... }} }}',
        )
    if not value:
        raise source.error(
            field, "must not be empty", 'name a config file, e.g. "./as-test.ci.json"'
        )
    path = Path(os.path.abspath(source.directory / value))
    mode_source = _Source(
        _display_path(path, source.project_root),
        path.parent,
        source.project_root,
        source.warnings,
        source.rules,
    )
    if not path.is_file():
        raise source.error(
            field,
            f"mode config file not found: {mode_source.display}",
            f"create it or correct the path (it is relative to {source.display})",
        )
    raw = _read_json_object(mode_source, path)
    if raw.get("modes") is not None:
        raise mode_source.error(
            "$.modes",
            f'this file is mode "{name}" of {source.display} and cannot declare nested modes',
            'remove "modes" from this file',
        )
    mode_source.warn_unknown_keys(raw, _TOP_LEVEL_KEYS, "$")
    # as-test: a file mode is always a default mode (it has no place for a "default" flag).
    return _read_layer(mode_source, raw, "$")


# --------------------------------------------------------------------------------------------
# Resolution: layers -> values -> ModeSettings


def _resolve_base(layer: _Layer) -> _Values:
    # The base config replaces the defaults outright, coverage included.
    return _overlay(_DEFAULTS, layer, layer.coverage or _DEFAULTS.coverage)


def _overlay(values: _Values, layer: _Layer, coverage: _Coverage) -> _Values:
    """``values`` with every field the layer sets taken from the layer."""
    return _Values(
        features=_pick(layer.features, values.features),
        input_patterns=_pick(layer.input_patterns, values.input_patterns),
        out_dir=_pick(layer.out_dir, values.out_dir),
        logs=_pick(layer.logs, values.logs),
        coverage_dir=_pick(layer.coverage_dir, values.coverage_dir),
        snapshot_dir=_pick(layer.snapshot_dir, values.snapshot_dir),
        crash_dir=_pick(layer.crash_dir, values.crash_dir),
        asconfig=_pick(layer.asconfig, values.asconfig),
        coverage=coverage,
        # env maps are replaced, never merged key by key (as-test's mergeRootConfig)
        env=_pick(layer.env, values.env),
        build_env=_pick(layer.build_env, values.build_env),
        run_env=_pick(layer.run_env, values.run_env),
        build_cmd=_pick(layer.build_cmd, values.build_cmd),
        build_args=_pick(layer.build_args, values.build_args),
        target=_pick(layer.target, values.target),
        runtime_cmd=_pick(layer.runtime_cmd, values.runtime_cmd),
        browser=_pick(layer.browser, values.browser),
        is_default=_pick(layer.is_default, values.is_default),
    )


_T = TypeVar("_T")


def _pick(own: _T | None, inherited: _T) -> _T:
    return inherited if own is None else own


def _merge_mode(base: _Values, layer: _Layer, rules: AsTestRules) -> _Values:
    """A named mode's values: what it sets over the base config's, as the installed as-test does.

    as-test 1.0.14 on: the mode's buildOptions.args, env maps and features replace the base's
    (1.0.14 and 1.0.15 still merged env maps key by key). Before 1.0.14: the mode's args are
    appended to the base's, its env maps merge into the base's key by key, and an empty
    runtime command keeps the base's (later, it means the default runner).
    """
    merged = _overlay(base, layer, _merge_coverage(base.coverage, layer.coverage, rules))
    if not rules.modes_are_full_configs and layer.build_args is not None:
        merged = replace(merged, build_args=(*base.build_args, *layer.build_args))
    if not rules.modes_are_full_configs and layer.runtime_cmd == "":
        merged = replace(merged, runtime_cmd=base.runtime_cmd)  # 1.0.7 skips an empty cmd
    if not rules.mode_maps_replace:
        merged = replace(
            merged,
            env={**base.env, **(layer.env or {})},
            build_env={**base.build_env, **(layer.build_env or {})},
            run_env={**base.run_env, **(layer.run_env or {})},
        )
    return merged


def _merge_coverage(base: _Coverage, mode: _Coverage | None, rules: AsTestRules) -> _Coverage:
    """A mode's boolean replaces; a mode's object overrides only the keys it has (1.0.16 on).

    Before 1.0.16 a mode's object replaced the base's whole; before 1.0.14 with "enabled"
    false unless it says otherwise (1.0.7 fills the mode's object in from its defaults).
    """
    if mode is None:
        return base
    if not mode.is_object:
        return mode
    if not rules.modes_are_full_configs:
        return replace(mode, enabled=bool(mode.enabled))
    if not rules.mode_maps_replace:
        return mode
    # as-test 1.1.0 merges an object key by key and ignore.* list by list (1.0.7 replaced the
    # whole object; merging keeps a mode that only says "enabled" from losing the base filters).
    ignore = {**(base.ignore or {}), **(mode.ignore or {})}
    return _Coverage(
        is_object=True,
        enabled=_pick(mode.enabled, base.enabled),
        include_specs=_pick(mode.include_specs, base.include_specs),
        include=_pick(mode.include, base.include),
        exclude=_pick(mode.exclude, base.exclude),
        ignore=ignore if base.ignore is not None or mode.ignore is not None else None,
    )


def _base_settings(values: _Values, rules: AsTestRules) -> ModeSettings:
    """The base config runs as mode "default", its directories suffixed with /default."""
    return _settings(
        DEFAULT_MODE_NAME,
        values,
        rules,
        out_dir=_join(values.out_dir, DEFAULT_MODE_NAME),
        logs=_suffix_unless_disabled(values.logs, DEFAULT_MODE_NAME),
        coverage_dir=_suffix_unless_disabled(values.coverage_dir, DEFAULT_MODE_NAME),
        crash_dir=_join(values.crash_dir, DEFAULT_MODE_NAME),
    )


def _mode_settings(name: str, base: _Values, layer: _Layer, rules: AsTestRules) -> ModeSettings:
    """A named mode: the base config's values, overridden by what the mode sets.

    Directories the mode does not set itself go under the base config's ones (``<outDir>/M``);
    snapshots and crash records stay shared with the base config.
    """
    merged = _merge_mode(base, layer, rules)
    return _settings(
        name,
        merged,
        rules,
        out_dir=layer.out_dir or _join(base.out_dir, name),
        logs=layer.logs or _suffix_unless_disabled(base.logs, name),
        coverage_dir=layer.coverage_dir or _suffix_unless_disabled(base.coverage_dir, name),
        crash_dir=merged.crash_dir,
    )


def _settings(
    name: str,
    values: _Values,
    rules: AsTestRules,
    *,
    out_dir: str,
    logs: str,
    coverage_dir: str,
    crash_dir: str,
) -> ModeSettings:
    coverage_enabled = values.coverage.enabled_for_build
    as_test_flags = {COVERAGE_ENV_VAR: "1" if coverage_enabled else "0"}
    if rules.mode_name_env:
        # as-test 1.3+: the transform bakes the mode's name in for the runtime's mode() helper.
        as_test_flags[MODE_NAME_ENV_VAR] = name
    return ModeSettings(
        name=name,
        target=values.target,
        input_patterns=values.input_patterns,
        out_dir=_normalise(out_dir),
        logs_dir=_optional_dir(logs),
        coverage_dir=_optional_dir(coverage_dir),
        snapshot_dir=_normalise(values.snapshot_dir),
        crash_dir=_normalise(crash_dir),
        asconfig=_optional_dir(values.asconfig),
        build_args=values.build_args,
        build_cmd=values.build_cmd,
        coverage_enabled=coverage_enabled,
        env=_sorted(values.env),
        build_env=_sorted({**values.env, **values.build_env, **as_test_flags}),
        run_env=_sorted({**values.env, **values.run_env}),
        # "" means none configured: the in-process default runner (see runtime_command.py).
        runtime_cmd=values.runtime_cmd,
        browser=values.browser,
        is_default=values.is_default,
        coverage_rules=values.coverage.rules,
        features=values.features,
    )


def _suffix_unless_disabled(path: str, name: str) -> str:
    return path if path == _DISABLED else _join(path, name)


def _optional_dir(path: str) -> str | None:
    return None if path == _DISABLED else _normalise(path)


def _join(path: str, name: str) -> str:
    return _normalise(posixpath.join(path, name))


def _normalise(path: str) -> str:
    return posixpath.normpath(path)


def _sorted(env: Mapping[str, str]) -> dict[str, str]:
    # Sorted so that equal settings produce equal cache keys whatever order the JSON used.
    return dict(sorted(env.items()))


# --------------------------------------------------------------------------------------------
# Small checks


def _expect_object(source: _Source, value: object, field: str, example: str) -> JsonObject:
    if not isinstance(value, dict):
        raise source.error(
            field,
            f"must be an object, got {_describe(value)}",
            f"write it as an object, e.g. {example}",
        )
    return value


def _check_string(source: _Source, value: object, field: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    key = field.rsplit(".", 1)[-1]
    raise source.error(
        field, f"must be a string, got {_describe(value)}", f'set "{key}" to a string'
    )


def _read_path(source: _Source, value: object, field: str) -> str | None:
    """A directory or file setting: a non-empty string (an empty one would mean the root)."""
    path = _check_string(source, value, field)
    if path == "":
        raise source.error(
            field, "must not be empty", "give a path, or remove the key for the default"
        )
    return path


def _read_bool(source: _Source, value: object, field: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise source.error(
        field, f"must be a boolean, got {_describe(value)}", "set it to true or false"
    )


def _check_choice(source: _Source, value: object, field: str, choices: Sequence[str]) -> None:
    if value is None or value in choices:
        return
    allowed = " or ".join(json.dumps(choice) for choice in choices)
    key = field.rsplit(".", 1)[-1]
    raise source.error(
        field, f"must be {allowed}, got {_describe(value)}", f'set "{key}" to {allowed}'
    )


def _check_number(source: _Source, value: object, field: str, *, allow_zero: bool) -> None:
    if value is None:
        return
    # bool is an int in Python, but not a number in JSON.
    if isinstance(value, bool) or not isinstance(value, int | float):
        in_range = False
    else:
        in_range = value >= 0 if allow_zero else value > 0
    if not in_range:
        bound = "zero or greater" if allow_zero else "greater than zero"
        raise source.error(
            field, f"must be a number {bound}, got {_describe(value)}", "set it to an integer"
        )


def _check_string_list(source: _Source, value: object, field: str) -> None:
    if value is None:
        return
    if not isinstance(value, list):
        raise source.error(
            field, f"must be an array of strings, got {_describe(value)}", 'write it as ["pattern"]'
        )
    _non_empty_strings(source, value, field, "remove it or make it a non-empty string")


def _non_empty_strings(
    source: _Source, value: list[object], field: str, fix: str
) -> tuple[str, ...]:
    for index, item in enumerate(value):
        if not (isinstance(item, str) and item):
            raise source.error(
                f"{field}[{index}]", f"must be a non-empty string, got {_describe(item)}", fix
            )
    return tuple(item for item in value if isinstance(item, str))


def _describe(value: object) -> str:
    """A JSON value as a message shows it: literal scalars, the kind of containers."""
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _plain(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Unknown keys


def _unknown_key_warning(display: str, key_path: str, key: str, known: Sequence[str]) -> str:
    suggestion = _closest(key, known)
    hint = f' (did you mean "{suggestion}"?)' if suggestion else ""
    return f"{display}: unknown key {key_path} ignored{hint}"


def _closest(word: str, candidates: Sequence[str]) -> str | None:
    """The candidate nearest to ``word`` within as-test's Levenshtein limit, first on ties."""
    best: str | None = None
    best_distance = _MAX_SUGGESTION_DISTANCE + 1
    for candidate in candidates:
        distance = _levenshtein(word, candidate)
        if distance < best_distance:
            best, best_distance = candidate, distance
    return best


def _levenshtein(left: str, right: str) -> int:
    previous = list(range(len(right) + 1))
    for i, left_char in enumerate(left, start=1):
        current = [i]
        for j, right_char in enumerate(right, start=1):
            substitution = previous[j - 1] + (left_char != right_char)
            current.append(min(previous[j] + 1, current[j - 1] + 1, substitution))
        previous = current
    return previous[-1]
