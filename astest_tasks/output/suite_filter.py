"""``--suite``: show only some suites of each spec, as as-test's ``--suite`` does
(docs/design/host-contract.md §11).

The whole spec still runs (and is cached whole); only what is reported is filtered, when the
summary is made, so changing the selection never re-runs anything. A suite's path is its
descriptions slugified and joined with ``/``; a selector with ``/`` must equal a path, a bare one
matches the last part, the shallowest match winning. A selected suite is shown whole, with the
suites inside it (as-test 1.1.0 drops those, so selecting a describe would show none of its
tests); its ancestors stay as containers without their own expectations. Runtime errors (a crash,
a compile failure) are always shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from astest_tasks.core.frozen import frozen
from astest_tasks.model.counting import count, failures, file_verdict
from astest_tasks.model.guest_report import Suite, Verdict, merge_verdicts
from astest_tasks.model.results import SpecResult, Status, status_of

RUNTIME_ERROR_KIND = "runtime-error"


@frozen
class Filtered:
    result: SpecResult | None  # None: nothing of this spec was selected
    problem: str = ""  # an ambiguous selector


def slug(description: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", description.lower()).strip("-")


def filter_result(result: SpecResult, selectors: Sequence[str]) -> Filtered:
    if not selectors:
        return Filtered(result)
    chosen: set[tuple[int, ...]] = set()
    for selector in selectors:
        matches = _matches(result.suites, selector)
        if not matches:
            continue
        shallowest = min(len(index) for index, _ in matches)
        at_top = [(index, path) for index, path in matches if len(index) == shallowest]
        if len(at_top) > 1:
            paths = ", ".join(path for _, path in at_top)
            return Filtered(
                None, f'suite selector "{selector}" is ambiguous in {result.spec}: {paths}'
            )
        chosen.add(at_top[0][0])
    errors = tuple(s for s in result.suites if s.kind == RUNTIME_ERROR_KIND)
    if not chosen and not errors:
        return Filtered(None)
    kept = tuple(_keep(result.suites, chosen, ())) + errors
    status = status_of(file_verdict(kept))
    filtered = replace(
        result,
        suites=kept,
        counts=count(kept, result.every_block_is_suite),
        failures=tuple(failures(kept)),
        status=Status.FAILED if result.status is Status.FAILED and errors else status,
    )
    return Filtered(filtered)


def _matches(
    suites: Sequence[Suite], selector: str, index: tuple[int, ...] = (), path: str = ""
) -> list[tuple[tuple[int, ...], str]]:
    wanted = selector.strip("/").lower()
    found: list[tuple[tuple[int, ...], str]] = []
    for position, suite in enumerate(suites):
        if suite.kind == RUNTIME_ERROR_KIND:
            continue
        here = (*index, position)
        suite_path = f"{path}/{slug(suite.description)}" if path else slug(suite.description)
        leaf = suite_path.rsplit("/", 1)[-1]
        if ("/" in wanted and suite_path == wanted) or ("/" not in wanted and leaf == slug(wanted)):
            found.append((here, suite_path))
        found += _matches(suite.suites, selector, here, suite_path)
    return found


def _keep(
    suites: Sequence[Suite], chosen: set[tuple[int, ...]], index: tuple[int, ...]
) -> list[Suite]:
    kept: list[Suite] = []
    for position, suite in enumerate(suites):
        if suite.kind == RUNTIME_ERROR_KIND:
            continue
        here = (*index, position)
        if here in chosen:
            kept.append(suite)  # with everything inside it
        elif any(c[: len(here)] == here for c in chosen):
            children = tuple(_keep(suite.suites, chosen, here))
            verdict = merged_verdict((child.verdict for child in children), suite.verdict)
            kept.append(replace(suite, tests=(), logs=(), suites=children, verdict=verdict))
    return kept


def merged_verdict(verdicts: Iterable[Verdict], fallback: Verdict) -> Verdict:
    """The merge of ``verdicts``; ``fallback`` when there are none."""
    merged = Verdict.NONE
    seen = False
    for verdict in verdicts:
        merged = merge_verdicts(merged, verdict)
        seen = True
    return merged if seen else fallback
