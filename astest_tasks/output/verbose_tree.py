"""``--verbose``: every suite and test of a spec under its summary line, as as-test 1.8's
``--verbose`` keeps "expanded suite/test lines" (its renderer's ``onSuiteEnd``): one line per
block, indented by depth, with the block's verdict and its ``log()`` lines beneath it. Names and
log lines are cut at the sizes the other reports use (text_caps.py): a spec may name a block with
megabytes of text or log a megabyte a line, and the tree is read in a terminal or a CI log."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from astest_tasks.core.guest_text import inert_field
from astest_tasks.model.guest_report import Suite, Verdict
from astest_tasks.model.results import Status
from astest_tasks.output.terminal import Palette
from astest_tasks.output.text_caps import MAX_LINE, cut, cut_name

_STATUS = {Verdict.OK: Status.PASSED, Verdict.FAIL: Status.FAILED}
INDENT = "    "


def tree_lines(suites: Sequence[Suite], palette: Palette, depth: int = 0) -> Iterator[str]:
    for suite in suites:
        badge = palette.badge(_STATUS.get(suite.verdict, Status.SKIPPED))
        yield f"{INDENT}{'  ' * depth}{badge} {inert_field(cut_name(suite.description))}"
        for line in suite.logs:
            logged = inert_field(cut(line, MAX_LINE))
            yield f"{INDENT}{'  ' * (depth + 1)}{palette.dim('LOG')} {logged}"
        yield from tree_lines(suite.suites, palette, depth + 1)
