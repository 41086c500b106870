"""What a coverage point is, in words: a label, a symbol name and the source line it sits on.

as-test's ``describeCoveragePoint`` (``bin/coverage-points.js``) reads a point's source line and
guesses a better label (``Function``, ``Method``, ``Constructor``, ``Property``, ``Call``, ...)
and the name it is about. The ``ignore`` rules match against those, so we guess exactly as the
installed as-test does, with the same regular expressions. There are two generations:

- up to 1.1.2 (1.0.7 is what we test) the transform records only ``Function``/``Expression``/
  ``Block``, and every point's line is tried as a declaration, then as a call;
- from 1.1.3 (``typed_points``) the transform emits finer types (``Parameter``,
  ``DefaultValue``, ``Ternary``, ``LogicalBranch``, ``IfBranch``, ``Assignment``, ``Return``,
  ``Loop``, ``Throw``, ...). Parameter-like lines are recognised first, whatever the type; the
  ternary, ``if`` and assignment detectors only for their own type; a declaration is guessed
  only for the types in ``_DECLARATION_TYPES`` and a call only for ``Expression``/``Call``, so a
  ``Return`` point on ``return area(shape);`` stays ``Return`` (1.1.2 said ``Call``).

The regular expressions are JavaScript's: ``\\w`` and ``\\b`` are ASCII (``re.ASCII``), while
``\\s`` is JavaScript's Unicode white space (``_js``), as are ``trim()``'s characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from astest_tasks.core.frozen import frozen
from astest_tasks.core.js_values import JS_WHITESPACE
from astest_tasks.core.lazy_pattern import LazyPattern
from astest_tasks.core.project_source import read_project_source

# JavaScript's \s: WhiteSpace and LineTerminator of ECMAScript (also what trim() removes).
_JS_SPACE = JS_WHITESPACE  # \s of a JavaScript regular expression


def _js(source: str) -> LazyPattern:
    """A JavaScript regex (no flags) in Python: \\s as JavaScript's, $ the end of the text;
    compiled on first use (JavaScript's whitespace class makes each one slow to compile)."""
    translated = source.replace(r"\s", f"[{_JS_SPACE}]").replace(r"\S", f"[^{_JS_SPACE}]")
    if translated.endswith("$"):
        translated = translated[:-1] + r"\Z"
    return LazyPattern(translated, re.ASCII)


_FUNCTION = _js(r"^(?:export\s+)?function\s+([A-Za-z_]\w*)(?:<[^>]+>)?\s*\(")
_CONSTRUCTOR = _js(r"^(?:public\s+|private\s+|protected\s+)constructor\s*\(")
_METHOD = _js(
    r"^(?:export\s+)?(?:public\s+|private\s+|protected\s+)?(?:static\s+)?"
    r"([A-Za-z_]\w*)(?:<[^>]+>)?\([^)]*\)\s*:\s*[^{=]+[{]?$"
)
_PROPERTY = _js(
    r"^(?:public\s+|private\s+|protected\s+)?(?:readonly\s+)?"
    r"([A-Za-z_]\w*)(?:<[^>]+>)?\s*:\s*[^=;{]+(?:=.*)?;?$"
)
# Keyword-led declarations: the keyword decides the label even when no name follows it.
_KEYWORD_DECLARATIONS: tuple[tuple[str, LazyPattern, LazyPattern], ...] = tuple(
    (
        label,
        _js(rf"^{prefix}{keyword}\b"),
        _js(rf"^{prefix}{keyword}\s+([A-Za-z_]\w*)"),
    )
    for label, prefix, keyword in (
        ("Class", r"(?:export\s+)?", "class"),
        ("Enum", r"(?:export\s+)?", "enum"),
        ("Interface", r"(?:export\s+)?", "interface"),
        ("Namespace", r"(?:export\s+)?", "namespace"),
        ("Variable", "", "(?:const|let|var)"),
    )
)
_CALL = _js(r"\b([A-Za-z_]\w*)(?:<[^>()]+>)?\s*\(")
_NOT_CALLS = frozenset({"if", "for", "while", "switch", "return", "function"})
# 1.1.3's detectors (detectCoverageParameter, ...Ternary, ...IfBranch, ...Assignment).
_INLINE_PARAMETER = _js(r"^([A-Za-z_]\w*)\s*:\s*[^=,]+(?:=\s*[^,]+)?[,]?$")
_PARAMETER = _js(r"([A-Za-z_]\w*)\s*:\s*[^,)=]+(?:=\s*[^,)]*)?")
_IF_BRANCH = _js(r"^if\s*\(([^)]*)\)")
_ASSIGNMENT = _js(
    r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[[^\]]+\])?)\s*"
    r"(=|\+=|-=|\*=|\*\*=|\/=|%=|<<=|>>=|>>>=|&=|\|=|\^=)"
)
_BRANCH_TYPES = frozenset({"Ternary", "LogicalBranch"})
_DECLARATION_TYPES = frozenset(
    {"Expression", "Block", "Function", "Method", "Constructor", "Variable", "Property", "Call"}
)
_CALL_TYPES = frozenset({"Expression", "Call"})
_LINE_BREAK = LazyPattern(r"\r?\n")
_NON_SPACE = LazyPattern(f"[^{_JS_SPACE}]")
_TRAILING_SPACE = LazyPattern(f"[{_JS_SPACE}]+\\Z")


@frozen
class PointInfo:
    label: str  # e.g. "Function", "Method", "Call", or the transform's own type
    name: str  # the symbol the line declares or calls; "" when none was recognised
    snippet: str  # the source line, indentation and trailing space removed; "" if unreadable


class SourceLines:
    """Source files read once each, relative to the project root (where as-test's cwd would be).
    A name comes from a spec's report or a stored record: only the project's own regular files
    are read (``core/project_source.py``); any other is unreadable, its lines empty."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._files: dict[str, list[str] | None] = {}

    def line(self, file: str, number: int) -> str:
        lines = self.lines(file)
        if lines is None or not 1 <= number <= len(lines):
            return ""
        return lines[number - 1]

    def lines(self, file: str) -> Sequence[str] | None:
        """Every line of ``file``; None when it cannot be read."""
        if file not in self._files:
            text = read_project_source(self._root, file)
            self._files[file] = None if text is None else _LINE_BREAK.split(text)
        return self._files[file]


def describe_point(
    sources: SourceLines,
    file: str,
    line: int,
    column: int,
    fallback_type: str,
    *,
    typed_points: bool,
) -> PointInfo:
    """The point's label, name and snippet; ``typed_points`` follows as-test 1.1.3 and later
    (``AsTestRules.typed_coverage_points``), else 1.1.2 and before."""
    visible, focus = _context(sources.line(file, line), column)
    if not visible:
        return PointInfo(label=fallback_type, name="", snippet="")
    if typed_points:
        typed = _typed_point(visible, focus, fallback_type)
        if typed is not None:
            return PointInfo(label=typed[0], name=typed[1], snippet=visible)
    if not typed_points or fallback_type in _DECLARATION_TYPES:
        declaration = _declaration(visible)
        if declaration is not None:
            return PointInfo(label=declaration[0], name=declaration[1], snippet=visible)
    if not typed_points or fallback_type in _CALL_TYPES:
        call = _call_name(visible, focus)
        if call is not None:
            return PointInfo(label="Call", name=call, snippet=visible)
    return PointInfo(label=fallback_type, name="", snippet=visible)


def _context(source_line: str, column: int) -> tuple[str, int]:
    expanded = source_line.replace("\t", "  ")
    first = _NON_SPACE.search(expanded)
    if first is None:
        return "", 0
    visible = _TRAILING_SPACE.sub("", expanded[first.start() :])
    if not visible:
        return "", 0
    focus = max(0, min(len(visible) - 1, max(0, column - 1 - first.start())))
    return visible, focus


def _typed_point(visible: str, focus: int, fallback_type: str) -> tuple[str, str] | None:
    """1.1.3's detectors, in its order: parameter, ternary, ``if`` branch, assignment."""
    parameter = _parameter(visible, focus, fallback_type)
    if parameter is not None:
        return parameter
    if fallback_type in _BRANCH_TYPES and "?" in visible:
        return fallback_type, ""
    if fallback_type == "IfBranch" and _IF_BRANCH.match(visible):
        return "IfBranch", ""
    if fallback_type == "Assignment" and _ASSIGNMENT.search(visible):
        return "Assignment", ""
    return None


def _parameter(visible: str, focus: int, fallback_type: str) -> tuple[str, str] | None:
    """A ``name: Type [= value]`` the point sits on: a line of its own (a parameter list split
    over lines) or inside the line's outermost parentheses. Tried for every point type."""
    inline = _INLINE_PARAMETER.match(visible)
    if inline:
        return _parameter_label(fallback_type, "=" in visible), inline.group(1)
    open_paren, close_paren = visible.find("("), visible.rfind(")")
    if open_paren == -1 or close_paren == -1 or close_paren <= open_paren:
        return None
    if focus <= open_paren or focus >= close_paren:
        return None
    offset = open_paren + 1
    for match in _PARAMETER.finditer(visible[offset:close_paren]):
        if offset + match.start() <= focus <= offset + match.end():
            return _parameter_label(fallback_type, "=" in match.group(0)), match.group(1)
    return None


def _parameter_label(fallback_type: str, has_default: bool) -> str:
    if fallback_type == "DefaultValue" and has_default:
        return "DefaultValue"
    return "Parameter" if fallback_type == "Parameter" else "Property"


def _declaration(visible: str) -> tuple[str, str] | None:
    trimmed = visible  # as-test trims it again; _context already has
    match = _FUNCTION.match(trimmed)
    if match:
        return "Function", match.group(1)
    if trimmed.startswith("constructor(") or _CONSTRUCTOR.match(trimmed):
        return "Constructor", "constructor"
    for label, pattern in (("Method", _METHOD), ("Property", _PROPERTY)):
        match = pattern.match(trimmed)
        if match:
            return label, match.group(1)
    for label, keyword, named in _KEYWORD_DECLARATIONS:
        if keyword.match(trimmed):
            found = named.match(trimmed)
            return label, found.group(1) if found else ""
    return None


def _call_name(visible: str, focus: int) -> str | None:
    best: re.Match[str] | None = None
    best_distance = float("inf")
    for match in _CALL.finditer(visible):
        start, end = match.start(), match.end()
        if focus < start:
            distance = start - focus
        elif focus >= end:
            distance = focus - end + 1
        else:
            distance = 0
        if distance < best_distance:  # the first of equally near calls wins, as in as-test
            best_distance = distance
            best = match
    if best is None or best.group(1) in _NOT_CALLS:
        return None
    if best_distance > max(12, len(visible) // 3):
        return None
    return best.group(1)
