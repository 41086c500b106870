"""Reading ``as-test.config.json``: each value checked, and every problem worded, here.

The format is as-test's (docs/design/host-contract.md §1), read with the rules of the as-test the
project has installed (``as_test_rules.py``). Values are checked with as-test's rules. Where as-test
collects every problem, we stop at the first one and raise a ``ConfigError`` naming the file, the
``$.field`` and a fix. Unknown keys are not errors here: each becomes a warning line in
``ProjectConfig.warnings``; so does a key the installed as-test lacks but whose later meaning is
safe to follow, while one that would change what is built or run (``features``, ``modes.*.default``)
is an error naming the release that brought it.

Each ``read_*(obj)`` below reads one setting of one config object (``ConfigObject``); the
declaration of every setting (``keys.py``) names its reader. ``check_*(obj)`` read parts of the
format we validate but do not use. Paths stay strings in posix form, as the user wrote them,
relative to the project root unless absolute. The only paths resolved against the config file's
directory are ``.env`` files and string-valued modes, as in as-test. A JSON ``null`` counts as
"key not set".
"""

from __future__ import annotations

import json
import math
import os
import posixpath
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypeVar, cast

from astest_tasks.config import as_test_rules
from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.as_test_version import NEWEST_TESTED as NEWEST_AS_TEST
from astest_tasks.config.asc_flags import TRY_AS
from astest_tasks.config.envfile import DotenvError, parse_dotenv
from astest_tasks.core.errors import ConfigError
from astest_tasks.coverage.rules import CoverageRules

Target = Literal["wasi", "bindings", "web"]


DISABLED = "none"  # "logs", "coverageDir" and "config" use this word to switch themselves off
_MAX_SUGGESTION_DISTANCE = 3

# Keys some as-test release accepts, per object: the union, so no key is "unknown" for one
# version and known for another. Which of them the installed version has is checked where
# each is read ("features", "cache", "reporter", the later mode keys).
TOP_LEVEL_KEYS = (
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
MODE_KEYS = (*(key for key in TOP_LEVEL_KEYS if key != "modes"), "default")
_OUTPUT_KEYS = ("build", "logs", "coverage", "snapshots")
_BUILD_OPTION_KEYS = ("cmd", "args", "target", "env")
_RUN_OPTION_KEYS = ("runtime", "reporter", "run", "env")
_RUNTIME_KEYS = ("cmd", "run", "browser")
_REPORTER_KEYS = ("name", "options", "outDir", "outFile")
_FUZZ_KEYS = ("input", "runs", "seed", "maxInputBytes", "target", "corpusDir", "crashDir")
_COVERAGE_KEYS = ("enabled", "includeSpecs", "include", "exclude", "ignore", "mode", "dependencies")
_COVERAGE_IGNORE_KEYS = ("labels", "names", "locations", "snippets")
_CACHE_KEYS = ("type", "maxTime")
# Which keys each object of the format may hold, by its path ("" is the top level, "modes.*" a
# mode): the one table the unknown-key warnings and the tests read (tests/config/test_keys.py
# holds every declared Key and every key of as-test's own schema to it).
KNOWN_KEYS: dict[str, tuple[str, ...]] = {
    "": TOP_LEVEL_KEYS,
    "modes.*": MODE_KEYS,
    "output": _OUTPUT_KEYS,
    "buildOptions": _BUILD_OPTION_KEYS,
    "runOptions": _RUN_OPTION_KEYS,
    "runOptions.runtime": _RUNTIME_KEYS,
    "runOptions.reporter": _REPORTER_KEYS,
    "fuzz": _FUZZ_KEYS,
    "coverage": _COVERAGE_KEYS,
    "coverage.ignore": _COVERAGE_IGNORE_KEYS,
    "cache": _CACHE_KEYS,
}

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
class CoverageSetting:
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
class Source:
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


_T = TypeVar("_T")


@dataclass
class ConfigObject:
    """One config object being read (the base config, or a mode): its JSON and where it is.

    A section several settings share (``buildOptions``, ``runOptions``, ``output``...) is checked,
    and its unknown keys warned about, the first time a setting reads it (``once``).
    """

    source: Source
    raw: JsonObject
    prefix: str
    is_inline_mode: bool = False  # a mode written inside "modes" (only those have "default")
    _done: dict[str, object] = field(default_factory=dict)

    def field(self, path: str) -> str:
        return f"{self.prefix}.{path}"

    def once(self, name: str, compute: Callable[[], _T]) -> _T:
        if name not in self._done:
            self._done[name] = compute()
        return cast(_T, self._done[name])


# --------------------------------------------------------------------------------------------
# Reading files


def read_json_object(source: Source, path: Path) -> JsonObject:
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
            f"the root value must be an object, got {describe(parsed)}",
            'wrap the settings in an object, e.g. { "input": ["./assembly/__tests__/*.spec.ts"] }',
        )
    return parsed


def _reject_json_constant(name: str) -> object:
    # Python's json accepts NaN and Infinity; JSON (and as-test's JSON.parse) does not.
    raise ValueError(f"{name} is not valid JSON")


def display_path(path: Path, root: Path) -> str:
    """The path relative to the project root when inside it, else absolute; for messages."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


# --------------------------------------------------------------------------------------------
# One setting of one config object each (named by the declarations in keys.py), in the order
# they are read: the first problem found is the one reported.


def check_schema(obj: ConfigObject) -> None:
    _check_string(obj.source, obj.raw.get("$schema"), obj.field("$schema"))


def read_is_default(obj: ConfigObject) -> bool | None:
    """``modes.*.default``; a file mode is always a default mode (it has no place for one)."""
    if not obj.is_inline_mode:
        return None
    return read_bool(obj.source, obj.raw.get("default"), obj.field("default"))


def read_input(obj: ConfigObject) -> tuple[str, ...] | None:
    return _read_input(obj.source, obj.raw.get("input"), obj.field("input"))


def output_dir_reader(legacy_key: str) -> Callable[[ConfigObject], str | None]:
    """``outDir``, ``logs``, ``coverageDir`` or ``snapshotDir``: the key itself wins over the
    ``output`` alias (as in as-test).

    Unlike as-test, a *mode's* string ``output`` is honoured too (as-test parses it and then
    ignores it, a quirk listed in docs/design/host-contract.md §13).
    """

    def read(obj: ConfigObject) -> str | None:
        alias = obj.once(
            "output",
            lambda: _read_output_alias(obj.source, obj.raw.get("output"), obj.field("output")),
        )
        own = _read_path(obj.source, obj.raw.get(legacy_key), obj.field(legacy_key))
        return own or alias.get(legacy_key)

    return read


def read_asconfig(obj: ConfigObject) -> str | None:
    return _read_path(obj.source, obj.raw.get("config"), obj.field("config"))


def check_cache(obj: ConfigObject) -> None:
    _check_cache(obj.source, obj.raw.get("cache"), obj.field("cache"))


def read_coverage(obj: ConfigObject) -> CoverageSetting | None:
    """``coverage``, turned on by ``"features": ["coverage"]`` too (see ``_coverage_feature``)."""
    coverage = _read_coverage(obj.source, obj.raw.get("coverage"), obj.field("coverage"))
    if _COVERAGE_FEATURE in (_all_features(obj) or ()):
        return _coverage_feature(obj.source, coverage, obj.field("features"))
    return coverage


def read_features(obj: ConfigObject) -> tuple[str, ...] | None:
    features = _all_features(obj)
    if features is None:
        return None
    return tuple(name for name in features if name != _COVERAGE_FEATURE)


def _all_features(obj: ConfigObject) -> tuple[str, ...] | None:
    return obj.once(
        "features",
        lambda: _read_features(obj.source, obj.raw.get("features"), obj.field("features")),
    )


def read_env(obj: ConfigObject) -> dict[str, str] | None:
    return _read_env(obj.source, obj.raw.get("env"), obj.field("env"))


def _build_options(obj: ConfigObject) -> JsonObject:
    return obj.once(
        "buildOptions",
        lambda: _section(
            obj, "buildOptions", '{ "args": [], "target": "wasi" }', _BUILD_OPTION_KEYS
        ),
    )


def read_build_cmd(obj: ConfigObject) -> str | None:
    return _check_string(obj.source, _build_options(obj).get("cmd"), obj.field("buildOptions.cmd"))


def read_build_args(obj: ConfigObject) -> tuple[str, ...] | None:
    args = _build_options(obj).get("args")
    return _read_build_args(obj.source, args, obj.field("buildOptions.args"))


def read_target(obj: ConfigObject) -> Target | None:
    target = _build_options(obj).get("target")
    return _read_target(obj.source, target, obj.field("buildOptions.target"))


def read_build_env(obj: ConfigObject) -> dict[str, str] | None:
    return _read_env(obj.source, _build_options(obj).get("env"), obj.field("buildOptions.env"))


def _fuzz(obj: ConfigObject) -> JsonObject:
    return obj.once(
        "fuzz",
        lambda: _section(obj, "fuzz", '{ "input": ["./assembly/__fuzz__/*.fuzz.ts"] }', _FUZZ_KEYS),
    )


def check_fuzz(obj: ConfigObject) -> None:
    """The fuzz section's keys; a mode's merge with the base's key by key (as-test 1.0.14's
    mergeFuzzConfig), and the readers below take the campaign settings."""
    fuzz, field = _fuzz(obj), obj.field("fuzz")
    _read_input(obj.source, fuzz.get("input"), f"{field}.input")
    _check_number(obj.source, fuzz.get("runs"), f"{field}.runs", allow_zero=False)
    _check_number(obj.source, fuzz.get("seed"), f"{field}.seed", allow_zero=True)
    maximum = fuzz.get("maxInputBytes")
    _check_number(obj.source, maximum, f"{field}.maxInputBytes", allow_zero=False)
    _check_choice(obj.source, fuzz.get("target"), f"{field}.target", ("bindings",))
    _read_path(obj.source, fuzz.get("corpusDir"), f"{field}.corpusDir")


def read_fuzz_input(obj: ConfigObject) -> tuple[str, ...] | None:
    return _read_input(obj.source, _fuzz(obj).get("input"), obj.field("fuzz.input"))


def read_fuzz_runs(obj: ConfigObject) -> int | None:
    runs = _fuzz(obj).get("runs")  # checked by check_fuzz: a positive number
    # as-test's normalizePositiveNumber rounds down (1.6 runs once); below 1 we still run once.
    return max(1, math.floor(runs)) if isinstance(runs, int | float) else None


def read_fuzz_seed(obj: ConfigObject) -> int | None:
    seed = _fuzz(obj).get("seed")  # checked by check_fuzz; absent: each campaign draws one
    return int(seed) if isinstance(seed, int | float) and not isinstance(seed, bool) else None


def read_crash_dir(obj: ConfigObject) -> str | None:
    """``fuzz.crashDir``: the crash records of failing tests go there too."""
    return _read_path(obj.source, _fuzz(obj).get("crashDir"), obj.field("fuzz.crashDir"))


def _run_options(obj: ConfigObject) -> JsonObject:
    return obj.once(
        "runOptions",
        lambda: _section(
            obj,
            "runOptions",
            '{ "runtime": { "cmd": "wasmtime run <file>" } }',
            _RUN_OPTION_KEYS,
        ),
    )


def _runtime(obj: ConfigObject) -> tuple[str | None, str | None, str | None]:
    return obj.once(
        "runtime",
        lambda: _read_runtime(
            obj.source, _run_options(obj).get("runtime"), obj.field("runOptions.runtime")
        ),
    )


def read_runtime_cmd(obj: ConfigObject) -> str | None:
    """Precedence runtime.cmd > runtime.run > run; an empty string falls through, and when all
    are empty the default runner applies (""), as in as-test's parseConfigRaw."""
    legacy_run = _check_string(
        obj.source, _run_options(obj).get("run"), obj.field("runOptions.run")
    )
    runtime_cmd, runtime_run, _ = _runtime(obj)
    if runtime_cmd is None and runtime_run is None and legacy_run is None:
        return None
    return runtime_cmd or runtime_run or legacy_run or ""


def read_browser(obj: ConfigObject) -> str | None:
    return _runtime(obj)[2]


def check_reporter(obj: ConfigObject) -> None:
    reporter = _run_options(obj).get("reporter")
    _check_reporter(obj.source, reporter, obj.field("runOptions.reporter"))


def read_run_env(obj: ConfigObject) -> dict[str, str] | None:
    return _read_env(obj.source, _run_options(obj).get("env"), obj.field("runOptions.env"))


def _section(obj: ConfigObject, key: str, example: str, known: Sequence[str]) -> JsonObject:
    """An object-valued section, checked, its unknown keys warned about; {} when absent."""
    value = obj.raw.get(key)
    if value is None:
        return {}
    field = obj.field(key)
    section = expect_object(obj.source, value, field, example)
    obj.source.warn_unknown_keys(section, known, field)
    return section


# --------------------------------------------------------------------------------------------
# Checking one value


def _read_input(source: Source, value: object, field: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        if not value:
            raise source.error(field, "must not be empty", "set it to a glob such as " + _SPEC_GLOB)
        return (value,)
    if not isinstance(value, list):
        raise source.error(
            field,
            f"must be a string or an array of strings, got {describe(value)}",
            f'write it as "input": [{_SPEC_GLOB}]',
        )
    return _non_empty_strings(source, value, field, "replace it with a glob such as " + _SPEC_GLOB)


def _read_output_alias(source: Source, value: object, field: str) -> dict[str, str]:
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
            f"must be a string or an object, got {describe(value)}",
            'write it as "output": "./.as-test/" or "output": { "build": "./.as-test/build" }',
        )
    source.warn_unknown_keys(value, _OUTPUT_KEYS, field)
    resolved: dict[str, str] = {}
    for legacy_key, alias_key in _OUTPUT_ALIAS.items():
        path = _read_path(source, value.get(alias_key), f"{field}.{alias_key}")
        if path is not None:
            resolved[legacy_key] = path
    return resolved


def _read_coverage(source: Source, value: object, field: str) -> CoverageSetting | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return CoverageSetting(is_object=False, enabled=value)
    if not isinstance(value, dict):
        raise source.error(
            field,
            f"must be a boolean or an object, got {describe(value)}",
            'use true, false or { "enabled": true, "include": ["assembly/**/*.ts"] }',
        )
    source.warn_unknown_keys(value, _COVERAGE_KEYS, field)
    enabled = read_bool(source, value.get("enabled"), f"{field}.enabled")
    include_specs = read_bool(source, value.get("includeSpecs"), f"{field}.includeSpecs")
    _check_choice(source, value.get("mode"), f"{field}.mode", _COVERAGE_MODES)
    _check_string_list(source, value.get("dependencies"), f"{field}.dependencies")
    return CoverageSetting(
        is_object=True,
        enabled=enabled,
        include_specs=include_specs,
        include=_read_string_list(source, value.get("include"), f"{field}.include"),
        exclude=_read_string_list(source, value.get("exclude"), f"{field}.exclude"),
        ignore=_read_coverage_ignore(source, value.get("ignore"), f"{field}.ignore"),
    )


def _read_coverage_ignore(
    source: Source, value: object, field: str
) -> dict[str, tuple[str, ...]] | None:
    if value is None:
        return None
    ignore = expect_object(source, value, field, '{ "labels": ["Call"], "names": ["panic"] }')
    source.warn_unknown_keys(ignore, _COVERAGE_IGNORE_KEYS, field)
    lists = {
        key: _read_string_list(source, ignore.get(key), f"{field}.{key}")
        for key in _COVERAGE_IGNORE_KEYS
    }
    return {key: patterns for key, patterns in lists.items() if patterns is not None}


def _read_string_list(source: Source, value: object, field: str) -> tuple[str, ...] | None:
    _check_string_list(source, value, field)
    if not isinstance(value, list):
        return None
    return tuple(item for item in value if isinstance(item, str))


def _read_build_args(source: Source, value: object, field: str) -> tuple[str, ...] | None:
    """Shell-tokenize each entry, as as-test does: ``"--bindings raw"`` is two arguments."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise source.error(
            field,
            f"must be an array of strings, got {describe(value)}",
            'write it as "args": ["--optimize"]',
        )
    tokens: list[str] = []
    for index, entry in enumerate(value):
        if not isinstance(entry, str):
            raise source.error(
                f"{field}[{index}]", f"must be a string, got {describe(entry)}", "quote it"
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


def _read_target(source: Source, value: object, field: str) -> Target | None:
    if value is None:
        return None
    if value == "wasi":
        return "wasi"
    if value == "bindings":
        return "bindings"
    if value == "web":
        return "web"
    raise source.error(
        field, f'must be "wasi", "bindings" or "web", got {describe(value)}', _TARGET_FIX
    )


def _read_runtime(
    source: Source, value: object, field: str
) -> tuple[str | None, str | None, str | None]:
    """``cmd``, ``run`` and ``browser`` (which only web modes use) as written, or None."""
    if value is None:
        return None, None, None
    runtime = expect_object(source, value, field, '{ "cmd": "wasmtime run <file>" }')
    source.warn_unknown_keys(runtime, _RUNTIME_KEYS, field)
    browser = _check_string(source, runtime.get("browser"), f"{field}.browser")
    cmd = _check_string(source, runtime.get("cmd"), f"{field}.cmd")
    return cmd, _check_string(source, runtime.get("run"), f"{field}.run"), browser


def _check_reporter(source: Source, value: object, field: str) -> None:
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
    reporter = expect_object(source, value, field, '"default"')
    source.warn_unknown_keys(reporter, _REPORTER_KEYS, field)


def _check_cache(source: Source, value: object, field: str) -> None:
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
            f'must be a boolean, "build", "full", "reachable" or an object, got {describe(value)}',
            'use false, true, "build", "full" or { "type": "full", "maxTime": "1h" }',
        )
    source.warn_unknown_keys(value, _CACHE_KEYS, field)
    _check_choice(source, value.get("type"), f"{field}.type", _CACHE_TYPES)
    max_time = value.get("maxTime")
    if max_time is not None and not (isinstance(max_time, str) and _DURATION.match(max_time)):
        raise source.error(
            f"{field}.maxTime",
            f'must be a duration like "90s", "30m", "1h" or "7d", got {describe(max_time)}',
            "use a number followed by ms, s, m, h or d",
        )


def _read_features(source: Source, value: object, field: str) -> tuple[str, ...] | None:
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
            f"must be an array of feature names, got {describe(value)}",
            'write it as "features": ["simd"]',
        )
    for index, item in enumerate(value):
        if not (isinstance(item, str) and item.strip()):
            raise source.error(
                f"{field}[{index}]",
                f"must be a non-empty string, got {describe(item)}",
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


def _coverage_feature(
    source: Source, coverage: CoverageSetting | None, field: str
) -> CoverageSetting:
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
    return CoverageSetting(is_object=False, enabled=True)


# --------------------------------------------------------------------------------------------
# env: a .env path (relative to the file that names it), ["K=V", ...] or {"K": "V"}


def _read_env(source: Source, value: object, field: str) -> dict[str, str] | None:
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
        f"got {describe(value)}",
        'write it as "env": { "MY_FLAG": "1" }',
    )


def _read_env_file(source: Source, value: str, field: str) -> dict[str, str]:
    if not value:
        raise source.error(field, "must not be empty", 'name a .env file, e.g. "./.env.test"')
    env_path = Path(os.path.abspath(source.directory / value))
    shown = display_path(env_path, source.project_root)
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


def _read_env_entries(source: Source, value: list[object], field: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for index, item in enumerate(value):
        key, separator, rest = item.partition("=") if isinstance(item, str) else ("", "", "")
        if not separator or not key.strip():
            raise source.error(
                f"{field}[{index}]",
                f'must be a "KEY=value" string, got {describe(item)}',
                'write it as "MY_FLAG=1"',
            )
        env[key.strip()] = rest
    return env


def _read_env_object(source: Source, value: JsonObject, field: str) -> dict[str, str]:
    for key, item in value.items():
        if not isinstance(item, str):
            raise source.error(
                f"{field}.{key}",
                f"must be a string, got {describe(item)}",
                f'quote the value: "{key}": "{_plain(item)}"',
            )
    return {key: item for key, item in value.items() if isinstance(item, str)}


# --------------------------------------------------------------------------------------------
# Small checks


def expect_object(source: Source, value: object, field: str, example: str) -> JsonObject:
    if not isinstance(value, dict):
        raise source.error(
            field,
            f"must be an object, got {describe(value)}",
            f"write it as an object, e.g. {example}",
        )
    return value


def _check_string(source: Source, value: object, field: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    key = field.rsplit(".", 1)[-1]
    raise source.error(
        field, f"must be a string, got {describe(value)}", f'set "{key}" to a string'
    )


def _read_path(source: Source, value: object, field: str) -> str | None:
    """A directory or file setting: a non-empty string (an empty one would mean the root)."""
    path = _check_string(source, value, field)
    if path == "":
        raise source.error(
            field, "must not be empty", "give a path, or remove the key for the default"
        )
    return path


def read_bool(source: Source, value: object, field: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise source.error(
        field, f"must be a boolean, got {describe(value)}", "set it to true or false"
    )


def _check_choice(source: Source, value: object, field: str, choices: Sequence[str]) -> None:
    if value is None or value in choices:
        return
    allowed = " or ".join(json.dumps(choice) for choice in choices)
    key = field.rsplit(".", 1)[-1]
    raise source.error(
        field, f"must be {allowed}, got {describe(value)}", f'set "{key}" to {allowed}'
    )


def _check_number(source: Source, value: object, field: str, *, allow_zero: bool) -> None:
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
            field, f"must be a number {bound}, got {describe(value)}", "set it to an integer"
        )


def _check_string_list(source: Source, value: object, field: str) -> None:
    if value is None:
        return
    if not isinstance(value, list):
        raise source.error(
            field, f"must be an array of strings, got {describe(value)}", 'write it as ["pattern"]'
        )
    _non_empty_strings(source, value, field, "remove it or make it a non-empty string")


def _non_empty_strings(
    source: Source, value: list[object], field: str, fix: str
) -> tuple[str, ...]:
    for index, item in enumerate(value):
        if not (isinstance(item, str) and item):
            raise source.error(
                f"{field}[{index}]", f"must be a non-empty string, got {describe(item)}", fix
            )
    return tuple(item for item in value if isinstance(item, str))


def describe(value: object) -> str:
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
    suggestion = closest(key, known)
    hint = f' (did you mean "{suggestion}"?)' if suggestion else ""
    return f"{display}: unknown key {key_path} ignored{hint}"


def closest(word: str, candidates: Sequence[str]) -> str | None:
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
