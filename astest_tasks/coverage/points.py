"""What a coverage point is, in words: a label, a symbol name and the source line it sits on.

The transform only records ``Function``/``Expression``/``Block`` with a line and column;
as-test 1.0.7 (``describeCoveragePoint`` in ``bin/coverage-points.js``) reads the source line and
guesses a better label (``Function``, ``Method``, ``Constructor``, ``Property``, ``Call``, ...)
and the name it is about. The ``ignore`` rules match against those, so we guess exactly as it
does, with the same regular expressions (ASCII word characters, as in JavaScript).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_DECLARATIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Function", re.compile(r"^(?:export\s+)?function\s+([A-Za-z_]\w*)(?:<[^>]+>)?\s*\(", re.A)),
    ("Constructor", re.compile(r"^(?:public\s+|private\s+|protected\s+)constructor\s*\(", re.A)),
    (
        "Method",
        re.compile(
            r"^(?:export\s+)?(?:public\s+|private\s+|protected\s+)?(?:static\s+)?"
            r"([A-Za-z_]\w*)(?:<[^>]+>)?\([^)]*\)\s*:\s*[^{=]+[{]?\Z",
            re.A,
        ),
    ),
    (
        "Property",
        re.compile(
            r"^(?:public\s+|private\s+|protected\s+)?(?:readonly\s+)?"
            r"([A-Za-z_]\w*)(?:<[^>]+>)?\s*:\s*[^=;{]+(?:=.*)?;?\Z",
            re.A,
        ),
    ),
)
# Keyword-led declarations: the keyword decides the label even when no name follows it.
_KEYWORD_DECLARATIONS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (
        label,
        re.compile(rf"^{prefix}{keyword}\b", re.A),
        re.compile(rf"^{prefix}{keyword}\s+([A-Za-z_]\w*)", re.A),
    )
    for label, prefix, keyword in (
        ("Class", r"(?:export\s+)?", "class"),
        ("Enum", r"(?:export\s+)?", "enum"),
        ("Interface", r"(?:export\s+)?", "interface"),
        ("Namespace", r"(?:export\s+)?", "namespace"),
        ("Variable", "", "(?:const|let|var)"),
    )
)
_CALL = re.compile(r"\b([A-Za-z_]\w*)(?:<[^>()]+>)?\s*\(", re.A)
_NOT_CALLS = frozenset({"if", "for", "while", "switch", "return", "function"})
_LINE_BREAK = re.compile(r"\r?\n")
_NON_SPACE = re.compile(r"\S")


@dataclass(frozen=True)
class PointInfo:
    label: str  # e.g. "Function", "Method", "Call", or the transform's own type
    name: str  # the symbol the line declares or calls; "" when none was recognised
    snippet: str  # the source line, indentation and trailing space removed; "" if unreadable


class SourceLines:
    """Source files read once each, relative to the project root (where as-test's cwd would be)."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._files: dict[str, list[str] | None] = {}

    def line(self, file: str, number: int) -> str:
        if file not in self._files:
            try:
                text = (self._root / file).read_text(encoding="utf-8", errors="replace")
            except (OSError, ValueError):  # ValueError: a name no path can have (NUL, surrogate)
                self._files[file] = None
            else:
                self._files[file] = _LINE_BREAK.split(text)
        lines = self._files[file]
        if lines is None or not 1 <= number <= len(lines):
            return ""
        return lines[number - 1]


def describe_point(
    sources: SourceLines, file: str, line: int, column: int, fallback_type: str
) -> PointInfo:
    visible, focus = _context(sources.line(file, line), column)
    if not visible:
        return PointInfo(label=fallback_type, name="", snippet="")
    declaration = _declaration(visible)
    if declaration is not None:
        return PointInfo(label=declaration[0], name=declaration[1], snippet=visible)
    call = _call_name(visible, focus)
    if call is not None:
        return PointInfo(label="Call", name=call, snippet=visible)
    return PointInfo(label=fallback_type, name="", snippet=visible)


def _context(source_line: str, column: int) -> tuple[str, int]:
    expanded = source_line.replace("\t", "  ")
    first = _NON_SPACE.search(expanded)
    if first is None:
        return "", 0
    visible = expanded[first.start() :].rstrip()
    if not visible:
        return "", 0
    focus = max(0, min(len(visible) - 1, max(0, column - 1 - first.start())))
    return visible, focus


def _declaration(visible: str) -> tuple[str, str] | None:
    trimmed = visible.strip()
    if not trimmed:
        return None
    for label, pattern in _DECLARATIONS[:1]:
        match = pattern.match(trimmed)
        if match:
            return label, match.group(1)
    if trimmed.startswith("constructor(") or _DECLARATIONS[1][1].match(trimmed):
        return "Constructor", "constructor"
    for label, pattern in _DECLARATIONS[2:]:
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
