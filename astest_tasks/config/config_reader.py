"""Reading ``as-test.config.json``: each value checked, and every problem worded, here.

The format is as-test's (docs/design/host-contract.md §1), read with the rules of the as-test the
project has installed (``as_test_rules.py``). Values are checked with as-test's rules. Where as-test
collects every problem, we stop at the first one and raise a ``ConfigError`` naming the file, the
``$.field`` and a fix. Unknown keys are not errors here: each becomes a warning line in
``ProjectConfig.warnings``; so does a key the installed as-test lacks but whose later meaning is
safe to follow, while one that would change what is built or run (``features``, ``modes.*.default``)
is an error naming the release that brought it.

Each ``read_*(obj, key)`` below reads one setting of one config object (``ConfigObject``) at the
place its declaration in ``keys.py`` gives (``ConfigObject.lookup``); ``check_*(obj, key)`` check
keys of the format we validate but do not use. Which keys each object may hold, and the sections'
examples, come from the declarations too (``Format``, handed over in ``Source``).
Paths stay strings in posix form, as the user wrote them,
relative to the project root unless absolute. The only paths resolved against the config file's
directory are ``.env`` files and string-valued modes, as in as-test. A JSON ``null`` counts as
"key not set".
"""

from __future__ import annotations

import codecs
import json
import math
import os
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field, replace
from pathlib import Path
from typing import Literal, Protocol, TypeVar, cast

from astest_tasks.config import as_test_rules
from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.as_test_version import NEWEST_TESTED as NEWEST_AS_TEST
from astest_tasks.config.asc_flags import TRY_AS
from astest_tasks.core.errors import ConfigError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import JsonNestingError, parse_json, reject_constant
from astest_tasks.core.lazy_pattern import LazyPattern
from astest_tasks.coverage.rules import CoverageRules

Target = Literal["wasi", "bindings", "web"]


DISABLED = "none"  # "logs", "coverageDir" and "config" use this word to switch themselves off
_MAX_SUGGESTION_DISTANCE = 3

_CACHE_TYPES = ("build", "full", "reachable")
_COVERAGE_FEATURE = "coverage"
_COVERAGE_MODES = ("project", "all")
_DURATION = LazyPattern(r"^\s*\d+(?:\.\d+)?\s*(?:ms|s|m|h|d)\s*$")
_TARGET_FIX = 'set "target" to "wasi", "bindings" or "web"'
_SPEC_GLOB = '"./assembly/__tests__/*.spec.ts"'
_MODE_ONLY = "modes.*."  # the places only a mode has ("modes.*.default")

JsonObject = dict[str, object]


@frozen
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


class Declared(Protocol):
    """A declaration of ``keys.py`` as its reader sees it: where its value is written."""

    @property
    def at(self) -> str: ...  # its JSON path in a config object, "modes.*.x" for a mode's own

    @property
    def aliases(self) -> tuple[str, ...]: ...  # places read in its stead, in precedence order


@frozen
class Format:
    """What the declarations of ``keys.py`` say about the shape of a config object.

    ``known`` lists, by the path of each object ("" the top level, "modes.*" a mode), the keys
    it may hold, in the order the did-you-mean of an unknown key tries them; ``examples`` the
    example each object-valued section shows when it is not an object; ``aliases`` maps each
    alias place (``output.build``) to the place of the key it stands for (``outDir``).
    """

    known: Mapping[str, tuple[str, ...]]
    examples: Mapping[str, str]
    aliases: Mapping[str, str]


@frozen
class Source:
    """One JSON file being read: where messages point, and where its relative files live."""

    display: str
    directory: Path
    project_root: Path
    warnings: list[str]
    rules: AsTestRules
    format: Format  # keys.FORMAT: the known keys and sections, from the declarations

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

    def warn_unknown_keys(self, obj: JsonObject, place: str, prefix: str) -> None:
        """Warn of each key of ``obj`` that the object at ``place`` (see ``Format``) lacks."""
        known = self.format.known[place]
        for key in obj:
            if key not in known:
                self.warnings.append(
                    _unknown_key_warning(self.display, f"{prefix}.{key}", key, known)
                )


_T = TypeVar("_T")


@frozen
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

    def lookup(self, place: str) -> tuple[object, str]:
        """The value written at a declared ``place`` (None when absent) and its ``$.field``.

        The sections on the way are checked, and their unknown keys warned about, once.
        """
        path = place.removeprefix(_MODE_ONLY)
        parent, _, name = path.rpartition(".")
        holder = self.section(parent) if parent else self.raw
        return holder.get(name), self.field(path)

    def section(self, place: str) -> JsonObject:
        """An object-valued section, checked, its unknown keys warned about; {} when absent."""
        return self.once(place, lambda: self._read_section(place))

    def _read_section(self, place: str) -> JsonObject:
        value, field = self.lookup(place)
        if value is None:
            return {}
        section = expect_object(self.source, value, field, self.source.format.examples[place])
        self.source.warn_unknown_keys(section, place, field)
        return section


# --------------------------------------------------------------------------------------------
# Reading files


def read_text_file(path: Path) -> str:
    r"""What ``path.read_text(encoding="utf-8-sig")`` gives, without the ``utf-8-sig`` codec,
    whose module every call would load for the config (issue 40): the file decoded as UTF-8
    after a leading byte-order mark (which editors on Windows write), its line ends made ``\n``
    as text mode makes them, the same UnicodeDecodeError for bytes that are not UTF-8, and
    nothing for a file of one or two bytes that begin a mark (the codec waits for a third)."""
    data = path.read_bytes()
    if len(data) < len(codecs.BOM_UTF8) and codecs.BOM_UTF8.startswith(data):
        return ""
    text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def read_json_object(source: Source, path: Path) -> JsonObject:
    try:
        text = read_text_file(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise source.error(
            "", f"cannot read the file: {exc}", "make it a readable UTF-8 file"
        ) from None
    try:
        parsed: object = parse_json(text, parse_constant=reject_constant)
    except JsonNestingError as exc:
        fix = "no setting nests more than a few levels: rewrite the file from the documented keys"
        raise source.error("", f"invalid JSON: {exc}", fix) from None
    except ValueError as exc:
        raise source.error("", f"invalid JSON: {exc}", "correct the JSON syntax") from None
    if not isinstance(parsed, dict):
        raise source.error(
            "$",
            f"the root value must be an object, got {describe(parsed)}",
            'wrap the settings in an object, e.g. { "input": ["./assembly/__tests__/*.spec.ts"] }',
        )
    return parsed


def display_path(path: Path, root: Path) -> str:
    """The path relative to the project root when inside it, else absolute; for messages."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


# --------------------------------------------------------------------------------------------
# One setting of one config object each (named by the declarations in keys.py), in the order
# they are read: the first problem found is the one reported. Each is given its declaration, and
# finds its value at the place declared there (``ConfigObject.lookup``).


def check_string(obj: ConfigObject, key: Declared) -> None:
    _check_string(obj.source, *obj.lookup(key.at))


def check_path(obj: ConfigObject, key: Declared) -> None:
    _read_path(obj.source, *obj.lookup(key.at))


def check_positive_number(obj: ConfigObject, key: Declared) -> None:
    _check_number(obj.source, *obj.lookup(key.at), allow_zero=False)


def choice_check(choices: Sequence[str]) -> Callable[[ConfigObject, Declared], None]:
    """A check that the value is one of ``choices``."""

    def check(obj: ConfigObject, key: Declared) -> None:
        _check_choice(obj.source, *obj.lookup(key.at), choices)

    return check


def read_is_default(obj: ConfigObject, key: Declared) -> bool | None:
    """``modes.*.default``; a file mode is always a default mode (it has no place for one)."""
    if not obj.is_inline_mode:
        return None
    return read_bool(obj.source, *obj.lookup(key.at))


def read_input(obj: ConfigObject, key: Declared) -> tuple[str, ...] | None:
    return _read_input(obj.source, *obj.lookup(key.at))


def read_output_dir(obj: ConfigObject, key: Declared) -> str | None:
    """``outDir``, ``logs``, ``coverageDir`` or ``snapshotDir``: the key itself wins over its
    alias in ``output`` (as in as-test).

    Unlike as-test, a *mode's* string ``output`` is honoured too (as-test parses it and then
    ignores it, a quirk listed in docs/design/host-contract.md §13).
    """
    (alias,) = key.aliases
    root = _parent(alias)
    aliases = {
        place: key for place, key in obj.source.format.aliases.items() if _parent(place) == root
    }
    resolved = obj.once(root, lambda: _read_output_alias(obj.source, *obj.lookup(root), aliases))
    own = _read_path(obj.source, *obj.lookup(key.at))
    return own or resolved.get(key.at)


def read_asconfig(obj: ConfigObject, key: Declared) -> str | None:
    return _read_path(obj.source, *obj.lookup(key.at))


def check_cache(obj: ConfigObject, key: Declared) -> None:
    _check_cache(obj.source, *obj.lookup(key.at), key.at)


# The key that "coverage" reads besides its own: "features": ["coverage"] turns coverage on.
_FEATURES = "features"


def read_coverage(obj: ConfigObject, key: Declared) -> CoverageSetting | None:
    """``coverage``, turned on by ``"features": ["coverage"]`` too (see ``_coverage_feature``)."""
    coverage = _read_coverage(obj.source, *obj.lookup(key.at), key.at)
    if _COVERAGE_FEATURE in (_all_features(obj, _FEATURES) or ()):
        return _coverage_feature(obj.source, coverage, obj.field(_FEATURES))
    return coverage


def read_features(obj: ConfigObject, key: Declared) -> tuple[str, ...] | None:
    features = _all_features(obj, key.at)
    if features is None:
        return None
    return tuple(name for name in features if name != _COVERAGE_FEATURE)


def _all_features(obj: ConfigObject, place: str) -> tuple[str, ...] | None:
    return obj.once(place, lambda: _read_features(obj.source, *obj.lookup(place)))


def read_env(obj: ConfigObject, key: Declared) -> dict[str, str] | None:
    return _read_env(obj.source, *obj.lookup(key.at))


def read_build_cmd(obj: ConfigObject, key: Declared) -> str | None:
    return _check_string(obj.source, *obj.lookup(key.at))


def read_build_args(obj: ConfigObject, key: Declared) -> tuple[str, ...] | None:
    return _read_build_args(obj.source, *obj.lookup(key.at))


def read_target(obj: ConfigObject, key: Declared) -> Target | None:
    return _read_target(obj.source, *obj.lookup(key.at))


def read_fuzz_input(obj: ConfigObject, key: Declared) -> tuple[str, ...] | None:
    """``fuzz.input``; a mode's ``fuzz`` keys merge with the base's one by one (as-test 1.0.14's
    mergeFuzzConfig), as every key here does."""
    return _read_input(obj.source, *obj.lookup(key.at))


def read_fuzz_runs(obj: ConfigObject, key: Declared) -> int | None:
    runs, field = obj.lookup(key.at)
    _check_number(obj.source, runs, field, allow_zero=False)
    # as-test's normalizePositiveNumber rounds down (1.6 runs once); below 1 we still run once.
    return max(1, math.floor(runs)) if isinstance(runs, int | float) else None


def read_fuzz_seed(obj: ConfigObject, key: Declared) -> int | None:
    seed, field = obj.lookup(key.at)  # absent: each campaign draws one
    _check_number(obj.source, seed, field, allow_zero=True)
    return int(seed) if isinstance(seed, int | float) and not isinstance(seed, bool) else None


def read_crash_dir(obj: ConfigObject, key: Declared) -> str | None:
    """``fuzz.crashDir``: the crash records of failing tests go there too."""
    return _read_path(obj.source, *obj.lookup(key.at))


# The runtime object's strings are checked together when either key reads it, in this order, so
# a config with two wrong ones reports the same one first as it always did.
_RUNTIME_CHECK_ORDER = ("browser", "cmd", "run")


def _runtime(obj: ConfigObject, place: str) -> JsonObject:
    def check() -> JsonObject:
        runtime = obj.section(place)
        for name in _RUNTIME_CHECK_ORDER:
            _check_string(obj.source, runtime.get(name), obj.field(f"{place}.{name}"))
        return runtime

    return obj.once(f"{place} strings", check)


def read_runtime_cmd(obj: ConfigObject, key: Declared) -> str | None:
    """Precedence runtime.cmd > runtime.run > run (the declared order); an empty string falls
    through, and when all are empty the default runner applies (""), as in as-test's
    parseConfigRaw."""
    *_, legacy_place = key.aliases
    _check_string(obj.source, *obj.lookup(legacy_place))  # checked before the runtime object
    _runtime(obj, _parent(key.at))
    written = [obj.lookup(place)[0] for place in (key.at, *key.aliases)]
    if all(value is None for value in written):
        return None
    return next((value for value in written if isinstance(value, str) and value), "")


def read_browser(obj: ConfigObject, key: Declared) -> str | None:
    browser = _runtime(obj, _parent(key.at)).get(key.at.rpartition(".")[2])
    return browser if isinstance(browser, str) else None


def _parent(place: str) -> str:
    return place.rpartition(".")[0]


def check_reporter(obj: ConfigObject, key: Declared) -> None:
    _check_reporter(obj.source, *obj.lookup(key.at), key.at)


def read_run_env(obj: ConfigObject, key: Declared) -> dict[str, str] | None:
    return _read_env(obj.source, *obj.lookup(key.at))


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


def _read_output_alias(
    source: Source, value: object, field: str, aliases: Mapping[str, str]
) -> dict[str, str]:
    """The keys an ``output`` value stands for, by their place (``aliases``: alias place, such
    as ``output.build``, to the key's own place, ``outDir``)."""
    if value is None:
        return {}
    if isinstance(value, str):
        # "output": "R" means outDir "R/build", logs "R/logs": each alias's name is its folder.
        root = _read_path(source, value, field)
        assert root is not None  # a string is never "absent"
        return {
            key: posixpath.join(root, place.rpartition(".")[2]) for place, key in aliases.items()
        }
    if not isinstance(value, dict):
        raise source.error(
            field,
            f"must be a string or an object, got {describe(value)}",
            'write it as "output": "./.as-test/" or "output": { "build": "./.as-test/build" }',
        )
    source.warn_unknown_keys(value, _parent(next(iter(aliases))), field)
    resolved: dict[str, str] = {}
    for place, key in aliases.items():
        name = place.rpartition(".")[2]
        path = _read_path(source, value.get(name), f"{field}.{name}")
        if path is not None:
            resolved[key] = path
    return resolved


def _read_coverage(source: Source, value: object, field: str, place: str) -> CoverageSetting | None:
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
    source.warn_unknown_keys(value, place, field)
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
        ignore=_read_coverage_ignore(
            source, value.get("ignore"), f"{field}.ignore", f"{place}.ignore"
        ),
    )


def _read_coverage_ignore(
    source: Source, value: object, field: str, place: str
) -> dict[str, tuple[str, ...]] | None:
    if value is None:
        return None
    ignore = expect_object(source, value, field, '{ "labels": ["Call"], "names": ["panic"] }')
    source.warn_unknown_keys(ignore, place, field)
    lists = {
        key: _read_string_list(source, ignore.get(key), f"{field}.{key}")
        for key in source.format.known[place]
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
    import shlex  # only a config that sets args splits them (issue 40)

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


def _check_reporter(source: Source, value: object, field: str, place: str) -> None:
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
    source.warn_unknown_keys(reporter, place, field)


def _check_cache(source: Source, value: object, field: str, place: str) -> None:
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
    source.warn_unknown_keys(value, place, field)
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
    from astest_tasks.config.envfile import DotenvError, parse_dotenv  # a config naming one

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
        return parse_dotenv(read_text_file(env_path))
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
