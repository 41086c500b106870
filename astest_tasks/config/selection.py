"""Choosing which spec files run: ``doit astest --spec math,nested/arr*`` or ASTEST_SPEC.

A selector with glob characters matches spec paths (from the project root) as a glob; any other
selector is a name fragment: ``math`` and ``math.spec.ts`` select every spec whose id contains
``math``; a path (``assembly/__tests__/math.spec.ts``, ``./nested/``) selects that file or folder.
doit's own task selection (``doit 'astest:run:wasi:math*'``) keeps working as well.
"""

from __future__ import annotations

import fnmatch
import posixpath
import urllib.parse
from collections.abc import Sequence

from astest_tasks.config.discovery import Spec
from astest_tasks.core.errors import UserError

_GLOB_CHARACTERS = frozenset("*?[]{}")


def split_selectors(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def selector_names(value: str) -> tuple[str, ...]:
    """A comma-separated option value as its names, as `--spec`, `--suite` and `--fuzzer` read
    theirs."""
    return tuple(split_selectors(value))


def select_specs(specs: Sequence[Spec], selectors: Sequence[str], mode: str) -> list[Spec]:
    """The specs any selector matches, in discovery order; no selectors means all of them."""
    if not selectors:
        return list(specs)
    chosen = [spec for spec in specs if any(_matches(spec, s) for s in selectors)]
    if not chosen:
        import difflib  # for the hint of a selector that matched nothing

        ids = [spec.spec_id for spec in specs]
        close = {
            match for s in selectors for match in difflib.get_close_matches(_stem(s), ids, n=3)
        }
        hint = f" (closest: {', '.join(sorted(close))})" if close else ""
        raise UserError(
            f"no spec of mode {mode!r} matches --spec {','.join(selectors)}{hint}; "
            f"its specs are: {', '.join(ids[:20])}{' …' if len(ids) > 20 else ''}; fix: "
            "give part of a spec's name, or a glob such as 'assembly/__tests__/math*'"
        )
    return chosen


def _matches(spec: Spec, selector: str) -> bool:
    if _GLOB_CHARACTERS & set(selector):
        return fnmatch.fnmatchcase(spec.path, selector) or fnmatch.fnmatchcase(
            spec.spec_id, selector
        )
    # An id percent-encodes what a task name must not hold (discovery.task_name_safe): a
    # selector may give either spelling, `a=b` or `a%3Db`.
    stem = _stem(selector)
    named = stem in spec.spec_id or stem in urllib.parse.unquote(spec.spec_id)
    return named or ("/" in selector and _names_path(spec, selector))


def _names_path(spec: Spec, selector: str) -> bool:
    """A selector written as a path (``assembly/__tests__/math.spec.ts``, ``./__tests__/math``,
    ``nested/``) names that spec file, or every spec under that folder, however the config's
    ``input`` spells its patterns (``./assembly/…`` or ``assembly/…``)."""
    wanted = posixpath.normpath(selector.strip())
    path = posixpath.normpath(spec.path)
    if selector.rstrip().endswith("/"):
        return path.startswith(wanted + "/") or f"/{wanted}/" in path
    return any(
        candidate == want or candidate.endswith("/" + want)
        for candidate in (path, _stem(path))
        for want in (wanted, _stem(wanted))
    )


def _stem(selector: str) -> str:
    return selector.removesuffix(".ts").removesuffix(".spec")
