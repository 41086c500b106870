"""The ``modes`` of a config: each one's name checked, and what it sets read into a ``Layer``.

A mode is an object inside ``modes`` or, from as-test 1.0.14, the path of a config file of its
own. Which mode keys the installed as-test knows is checked here (``_LATER_MODE_KEYS``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from astest_tasks.config import as_test_rules
from astest_tasks.config.config_reader import (
    ConfigObject,
    JsonObject,
    Source,
    describe,
    display_path,
    expect_object,
    read_json_object,
)
from astest_tasks.config.layers import Layer, read_layer
from astest_tasks.core.guest_text import terminal_text

DEFAULT_MODE_NAME = "default"


def read_modes(source: Source, value: object) -> dict[str, Layer]:
    """What each declared mode sets itself, by name, in the order declared."""
    if value is None:
        return {}
    declared = expect_object(source, value, "$.modes", '{ "wasmtime": { "default": false } }')
    modes: dict[str, Layer] = {}
    for name, mode_raw in declared.items():
        field = _mode_field(name)
        _check_mode_name(source, name, field)
        modes[name] = _read_mode_layer(source, name, mode_raw, field)
    return modes


# A mode name is printed as it is, by doit too: in every task's title (``.  astest:run:<mode>:``),
# in ``doit list`` and in doit's own errors, where nothing of ours can make it inert. So a name
# that would act there is refused when the config is read. No Unicode character of these
# categories: controls (C0, DEL, C1: ESC starts terminal sequences, a line break lets the next
# line be a runner's ``::command::``), invisible format characters (bidirectional overrides,
# zero-width spaces: a name that shows as another), lone surrogates (no file name on disk), line
# and paragraph separators. Every printable name is kept, but for these parts:
_KINDS = {
    "Cc": "a control character",
    "Cf": "an invisible format character",
    "Cs": "half of a surrogate pair, alone",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}
_NOT_PRINTABLE = frozenset(_KINDS)
# Each part as an error names it (never writing ``##[`` itself), and why it is refused.
_REFUSED_PARTS = {
    "=": ('"="', "doit refuses a task name with it"),
    "##[": (
        '"[" after "##"',
        "a GitHub Actions runner reads it, anywhere in a printed line, as a workflow command",
    ),
}
_NAME_FIX = (
    "rename the mode without the character or part named, in printable text: letters (of any "
    'script), digits, spaces and punctuation such as ":", "-", "_", "." (as in "node:wasi"), '
    'without "=" or a "[" after "##"'
)


def _mode_field(name: str) -> str:
    """The field of mode ``name`` as an error names it: a name refused here ``_shown``, so that
    the error line (which doit prints as it is) shows the name rather than acting on it."""
    return f"$.modes[{_shown(name)}]" if _refusal(name) else f"$.modes.{name}"


def _shown(name: str) -> str:
    """``name`` in JSON's quotes, as readable as it is: printable text of any script as it is,
    each character refused above escaped (``\\n``, ``\\u200c``), and a ``##[`` broken as every
    line we print breaks it (``##\\[``)."""
    quoted = json.dumps(name, ensure_ascii=False)  # escapes C0 controls, keeps the rest
    visible = "".join(
        _escape(character) if _refused_kind(character) is not None else character
        for character in quoted
    )
    return terminal_text(visible, colour=False, github_actions=True)


def _escape(character: str) -> str:
    code = ord(character)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _refusal(name: str) -> str:
    """Why ``name`` would act where it is printed, naming the first such character or part;
    empty when it would not."""
    for position, character in enumerate(name, start=1):
        refused = _refused_kind(character)
        if refused is not None:
            category, named = refused
            what = f"{_KINDS[category]} ({named})" if named else _KINDS[category]
            return (
                f"holds U+{ord(character):04X}, {what}, as its character {position}, which task "
                "names and reports would carry to terminals and CI logs"
            )
    for part, (label, why) in _REFUSED_PARTS.items():
        if part in name:
            return f"holds {label}: {why}"
    return ""


def _refused_kind(character: str) -> tuple[str, str] | None:
    """The category (one of ``_KINDS``) and the Unicode name of ``character`` when a mode name
    may not hold it; None for any other. An ASCII character is printable or a control (Cc,
    which has no name), so an ASCII name is checked without loading unicodedata (issue 40)."""
    if character.isascii():
        return None if character.isprintable() else ("Cc", "")
    import unicodedata

    category = unicodedata.category(character)
    return (category, unicodedata.name(character, "")) if category in _NOT_PRINTABLE else None


def _check_mode_name(source: Source, name: str, field: str) -> None:
    refusal = _refusal(name)
    if refusal:
        raise source.error(field, f"mode name {_shown(name)} {refusal}", _NAME_FIX)
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


def _read_mode_layer(source: Source, name: str, value: object, field: str) -> Layer:
    if isinstance(value, str):
        return _read_mode_file(source, name, value, field)
    if not isinstance(value, dict):
        raise source.error(
            field,
            f"must be a config object or a config file path, got {describe(value)}",
            f'write it as "{name}": {{ "buildOptions": {{ "target": "wasi" }} }} '
            f'or "{name}": "./as-test.{name}.config.json"',
        )
    if value.get("modes") is not None:
        raise source.error(
            f"{field}.modes", "a mode cannot declare nested modes", "move these modes to $.modes"
        )
    _check_mode_keys_exist(source, value, field)
    source.warn_unknown_keys(value, "modes.*", field)
    return read_layer(ConfigObject(source, value, field, is_inline_mode=True))


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


def _check_mode_keys_exist(source: Source, value: JsonObject, field: str) -> None:
    """A mode key the installed as-test rejects: a warning or an error (see _LATER_MODE_KEYS)."""
    for key, (release, fix) in _LATER_MODE_KEYS.items():
        if key not in value or source.rules.at_least(release):
            continue
        if key in _WARNED_MODE_KEYS:
            source.warn_too_old(f"{field}.{key}", release, fix)
        else:
            raise source.too_old(f"{field}.{key}", release, fix)


def _read_mode_file(source: Source, name: str, value: str, field: str) -> Layer:
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
    mode_source = Source(
        display_path(path, source.project_root),
        path.parent,
        source.project_root,
        source.warnings,
        source.rules,
        source.format,
    )
    if not path.is_file():
        raise source.error(
            field,
            f"mode config file not found: {mode_source.display}",
            f"create it or correct the path (it is relative to {source.display})",
        )
    raw = read_json_object(mode_source, path)
    if raw.get("modes") is not None:
        raise mode_source.error(
            "$.modes",
            f'this file is mode "{name}" of {source.display} and cannot declare nested modes',
            'remove "modes" from this file',
        )
    mode_source.warn_unknown_keys(raw, "", "$")
    # as-test: a file mode is always a default mode (it has no place for a "default" flag).
    return read_layer(ConfigObject(mode_source, raw, "$"))
