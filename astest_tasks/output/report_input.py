"""What every report format is written from: the shown results, each spec's stored result text
and test cases, the coverage, the shard, and what only the HTML page adds (``ReportContext``).

Its own module, below both ``formats/`` and ``html/``, so the page's modules read it without
importing the registry of formats, which names the page's format (no cycle through a package).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from pathlib import Path

from astest_tasks.config.shards import ShardPart
from astest_tasks.core.frozen import frozen
from astest_tasks.model.results import SpecResult
from astest_tasks.model.test_cases import TestCase
from astest_tasks.output.console import Shown
from astest_tasks.output.coverage_summary import CoverageOutcome
from astest_tasks.output.duration_history import EMPTY, History
from astest_tasks.output.fuzz_summary import ShownFuzz


@frozen
class ReportContext:
    """What only the HTML report shows beyond the results: where the spec sources are (for the
    lines a failure or a coverage point names; None when not at hand, as in ``astest merge``),
    the fuzz campaigns of a ``--fuzz`` run, each spec's past durations, and how a spec is run
    again (``doit astest``, or ``astest``; "" when unknown)."""

    project_root: Path | None = None
    fuzz: Sequence[ShownFuzz] = ()
    history: History = field(default_factory=lambda: EMPTY)
    rerun_command: str = ""


NO_CONTEXT = ReportContext()


@frozen
class ReportInput:
    """The results every format reports, in summary order.

    ``whole_results`` is each spec's whole result as the JSON text it is stored as (report.json
    splices it in unparsed); ``spec_points`` each spec's test cases (see ci_reports.points).
    """

    shown: Sequence[Shown]
    whole_results: Sequence[str]
    spec_points: Sequence[Sequence[TestCase]]
    coverage: CoverageOutcome | None = None
    shard: ShardPart | None = None  # when this run is shard k of N: its part of the split
    context: ReportContext = NO_CONTEXT

    @property
    def results(self) -> list[SpecResult]:
        return [item.result for item in self.shown]
