"""``!`` patterns in ``input``: which spec files they take out, by as-test's own two rules.

as-test never wrote a matcher of its own for these; it leans on two npm packages, and their
rules differ, so a pattern can exclude a spec in one place and not in the other:

- **The base config's ``input``** (as-test 1.5.2+, ``resolveSpecFiles`` in ``cli/selectors.ts``):
  the ``!`` patterns become the ``ignore`` option of the ``glob`` package. A spec is left out when
  its project-relative path (or that path with a ``/`` after it) matches, with ``dot: true``,
  leading ``./`` parts of the pattern dropped, no negation and no comments; an absolute pattern
  is held against the absolute path. A pattern without a slash (``!03-*``) names only files at
  the project root, so it excludes no spec under ``assembly/``.
- **A mode's own ``!`` patterns** (as-test 1.5.0+, the "mode-level exclusion" at the top of
  ``run()`` in ``cli/commands/run-core.ts``): those in the mode's ``input`` that the base config's
  ``input`` does not also hold are held against the same relative path by ``minimatch`` with
  ``dot: true, matchBase: true``: a pattern without a slash matches the file's name in any
  folder (``!03-*`` does exclude ``assembly/__tests__/03-c.spec.ts`` here), ``./`` is *not*
  dropped (``!./assembly/...`` excludes nothing), a second ``!`` negates, and a pattern starting
  with ``#`` is a comment that matches nothing.

Both are case-sensitive, as the npm packages are on Linux; ``glob`` folds case on macOS and
Windows, and so do we there. The matching itself is wcmatch's, which speaks the same dialect as
minimatch (globstar, braces, extglobs, classes); ``tests/integration/test_input_exclusions.py``
holds it against the real ``glob`` and ``minimatch`` as-test 1.8 installs.
"""

from __future__ import annotations

import posixpath
import sys
from collections.abc import Sequence
from types import ModuleType

from astest_tasks.core.lazy_pattern import LazyPattern

EXCLUSION_PREFIX = "!"
_BRACES = LazyPattern(r"\{([^{}]*)\}")


def _wc() -> ModuleType:
    """wcmatch's glob, loaded when a ``!`` pattern is first matched: most projects have none,
    and a run with nothing to do should not pay for it (issue 40)."""
    from wcmatch import glob as wc

    return wc


def _flags(case: str) -> int:
    """The dialect both npm packages speak, with ``case`` ("CASE" or "IGNORECASE")."""
    wc = _wc()
    flags: int = wc.GLOBSTAR | wc.BRACE | wc.EXTGLOB | wc.DOTGLOB | wc.FORCEUNIX
    chosen: int = getattr(wc, case)
    return flags | chosen


# glob's default `nocase` is true on macOS and Windows; minimatch's is false everywhere.
_GLOB_CASE = "IGNORECASE" if sys.platform in ("darwin", "win32") else "CASE"


def expand_braces(pattern: str) -> list[str]:
    """Expand ``{a,b}`` alternatives (as the npm ``glob`` package as-test uses does)."""
    if "{" not in pattern:  # most patterns: no need to compile _BRACES (issue 40)
        return [pattern]
    match = _BRACES.search(pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    expanded: list[str] = []
    for option in match.group(1).split(","):
        expanded.extend(expand_braces(head + option + tail))
    return expanded


def is_exclusion(pattern: str) -> bool:
    return pattern.startswith(EXCLUSION_PREFIX)


def includes_of(patterns: Sequence[str]) -> tuple[str, ...]:
    return tuple(pattern for pattern in patterns if not is_exclusion(pattern))


def exclusions_of(patterns: Sequence[str]) -> tuple[str, ...]:
    return tuple(pattern for pattern in patterns if is_exclusion(pattern))


def mode_only_exclusions(base: Sequence[str], mode: Sequence[str]) -> tuple[str, ...]:
    """The ``!`` patterns of a mode's ``input`` that the base ``input`` does not hold."""
    inherited = set(exclusions_of(base))
    return tuple(pattern for pattern in exclusions_of(mode) if pattern not in inherited)


def glob_ignores(relative_path: str, absolute_path: str, exclusion: str) -> bool:
    """Whether the base config's ``exclusion`` (with its ``!``) leaves this spec out: the
    ``glob`` package's ``ignore`` rule (its ``Ignore`` class, ``dist/esm/ignore.js``)."""
    pattern = _glob_tidy(exclusion[len(EXCLUSION_PREFIX) :])
    if not pattern:
        return False
    subject = absolute_path if posixpath.isabs(pattern) else relative_path
    flags, wc = _flags(_GLOB_CASE), _wc()
    return bool(
        wc.globmatch(subject, pattern, flags=flags)
        or wc.globmatch(subject + "/", pattern, flags=flags)
    )


def minimatch_excludes(relative_path: str, exclusion: str) -> bool:
    """Whether a mode's ``exclusion`` (with its ``!``) leaves this spec out of that mode:
    ``minimatch(rel, pattern, { dot: true, matchBase: true })``."""
    pattern = exclusion[len(EXCLUSION_PREFIX) :]
    if pattern.startswith("#") or not pattern:
        return False  # a comment, or an empty pattern, which matches only an empty path
    negated = False
    while pattern.startswith("!"):
        negated = not negated
        pattern = pattern[1:]
    flags, wc = _flags("CASE"), _wc()
    matched = bool(pattern) and any(
        wc.globmatch(relative_path, branch, flags=flags) for branch in _minimatch_branches(pattern)
    )
    return matched != negated


def _minimatch_branches(pattern: str) -> list[str]:
    """minimatch's reading: braces expanded first, ``seg/..`` collapsed (its default
    optimisation), and each slashless branch matched against the name (``matchBase``)."""
    branches = []
    for expanded in expand_braces(pattern):
        parts = _collapse_parents(expanded.split("/"))
        branches.append("/".join(parts) if len(parts) > 1 else "**/" + parts[0])
    return branches


def _glob_tidy(pattern: str) -> str:
    """glob's ``Ignore`` compiles at optimisation level 2: empty and ``.`` parts dropped (a
    leading ``/`` kept), ``seg/..`` collapsed."""
    parts = pattern.split("/")
    head = [""] if parts[0] == "" and len(parts) > 1 else []
    kept = [part for part in parts[len(head) :] if part not in ("", ".")]
    return "/".join(head + _collapse_parents(kept))


def _collapse_parents(parts: list[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if part == ".." and out and out[-1] not in ("..", ".", "**"):
            out.pop()
        else:
            out.append(part)
    return out
