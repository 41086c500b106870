"""Which coverage points count: the ``coverage`` block's rules, applied as as-test 1.0.7 does.

as-test 1.0.7 (``isIgnoredCoverageFile``, ``matchesCoverageGlob``, ``isIgnoredCoveragePoint`` in
``bin/commands/run-core.js``) drops a point when its file is not a ``.ts``/``.as`` source, is
under ``node_modules``, is AssemblyScript's standard library, is a ``*.spec.ts`` (unless
``includeSpecs``), misses every non-empty ``include`` glob or hits an ``exclude`` glob; then
when one of the ``ignore`` lists matches the point's label, symbol name, ``file:line:col`` or
source line. Labels, names and snippets compare lower-cased; files and locations compare as
written, as there. as-test 1.8 matches the same way; only the label and name it guesses from the
source line changed (in 1.1.3: points.py), which ``typed_points`` follows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from astest_tasks.core.frozen import frozen
from astest_tasks.coverage.points import SourceLines, describe_point

if TYPE_CHECKING:  # the rules are part of every mode's config; the points only of a coverage run
    from astest_tasks.coverage.model import CoveragePoint

# JavaScript's `.` (no `s` flag): anything but a line terminator.
_JS_DOT = "[^\n\r\u2028\u2029]"
# Characters as-test escapes when it turns a glob into a regular expression; every other
# character is literal in both JavaScript's and Python's regex syntax, or a glob wildcard.
_REGEX_SPECIALS = "\\.[]{}()+-^$|"


@frozen
class CoverageRules:
    """The ``coverage`` options that choose points (``resolveCoverageOptions``); empty keeps all."""

    include_specs: bool = False
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    ignore_labels: tuple[str, ...] = ()
    ignore_names: tuple[str, ...] = ()
    ignore_locations: tuple[str, ...] = ()
    ignore_snippets: tuple[str, ...] = ()
    # The installed as-test guesses labels and names as 1.1.3 and later do (points.py); not a
    # config key: AsTestRules.typed_coverage_points, set where the tasks are made.
    typed_points: bool = False

    @property
    def ignores_points(self) -> bool:
        return bool(
            self.ignore_labels or self.ignore_names or self.ignore_locations or self.ignore_snippets
        )


def is_ignored_file(file: str, rules: CoverageRules) -> bool:
    """True when no point of ``file`` (a path as the transform wrote it) should be counted."""
    normalized = file.replace("\\", "/")
    if not normalized.lower().endswith((".ts", ".as")):
        return True
    if normalized.startswith("node_modules/") or "/node_modules/" in normalized:
        return True
    if _is_standard_library(normalized):
        return True
    if not rules.include_specs and normalized.endswith(".spec.ts"):
        return True
    if rules.include and not any(_matches_glob(normalized, p) for p in rules.include):
        return True
    return any(_matches_glob(normalized, p) for p in rules.exclude)


def _is_standard_library(file: str) -> bool:
    return (
        file.startswith(("~lib/", "assemblyscript/std/"))
        or "/~lib/" in file
        or "/assemblyscript/std/" in file
    )


def _matches_glob(file: str, pattern: str) -> bool:
    normalized = pattern.replace("\\", "/").strip()
    return bool(normalized) and glob_regex(normalized).match(file) is not None


def glob_regex(pattern: str) -> re.Pattern[str]:
    """as-test's glob: ``**/`` any folders (or none), ``**`` anything but a line break (a
    JavaScript ``.``), ``*`` and ``?`` within a folder name; anchored at both ends."""
    return _compiled_glob(pattern)


@lru_cache(maxsize=256)
def _compiled_glob(pattern: str) -> re.Pattern[str]:
    source = ["^"]
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "*":
            if pattern[index + 1 : index + 2] == "*":
                if pattern[index + 2 : index + 3] == "/":
                    source.append(f"(?:{_JS_DOT}*/)?")
                    index += 3
                else:
                    source.append(f"{_JS_DOT}*")
                    index += 2
                continue
            source.append("[^/]*")
        elif char == "?":
            source.append("[^/]")
        elif char in _REGEX_SPECIALS:
            source.append("\\" + char)
        else:
            source.append(char)
        index += 1
    # \Z, not $: JavaScript's $ never matches before a trailing newline, Python's does.
    source.append(r"\Z")
    return re.compile("".join(source))


def is_ignored_point(point: CoveragePoint, rules: CoverageRules, sources: SourceLines) -> bool:
    """True when an ``ignore`` list matches the point (its file already passed the file rules)."""
    if not rules.ignores_points:
        return False
    info = describe_point(
        sources, point.file, point.line, point.column, point.type, typed_points=rules.typed_points
    )
    location = f"{point.file.replace(chr(92), '/')}:{point.line}:{point.column}"
    label = info.label.lower()
    name = info.name.lower()
    snippet = info.snippet.lower()
    if _any_text_match(label, rules.ignore_labels, lower=True):
        return True
    if name and _any_text_match(name, rules.ignore_names, lower=True):
        return True
    locations = [pattern.replace("\\", "/") for pattern in rules.ignore_locations]
    if _any_text_match(location, locations, lower=False):
        return True
    return bool(snippet) and _any_text_match(snippet, rules.ignore_snippets, lower=True)


def _any_text_match(value: str, patterns: Sequence[str], *, lower: bool) -> bool:
    for pattern in patterns:
        normalized = (pattern.lower() if lower else pattern).strip()
        if normalized and glob_regex(normalized).match(value) is not None:
            return True
    return False
