"""report.json: every spec's result, totals, coverage and shard, for programs (``astest merge``,
``--shard-durations``, CI scripts, jq)."""

from __future__ import annotations

import json

from astest_tasks.core.records import encode
from astest_tasks.model.results import Status
from astest_tasks.output.coverage_summary import coverage_report_json
from astest_tasks.output.formats import REPORT_FILE, REPORT_FORMAT
from astest_tasks.output.formats.base import TextFormat
from astest_tasks.output.report_input import ReportInput


def report_json(reports: ReportInput) -> str:
    """Compact JSON, each spec's whole result spliced in as the text it is stored as, so no
    expectation is parsed or encoded."""
    shown = reports.shown
    specs = []
    for item, whole in zip(shown, reports.whole_results, strict=True):
        result = item.result
        entry = _compact(
            {
                "file": result.spec,
                "spec_id": result.spec_id,
                "mode": result.mode,
                "target": result.target,
                "verdict": result.status.value,
                "stage": result.stage.value,
                "cached": item.cached,
                "duration_s": round(result.duration_s, 6),
                "counts": encode(result.counts),
                "failures": [encode(f) for f in result.failures],
                "error": result.error,
                "warnings": list(result.warnings),
                "build_command": result.build_command,
            }
        )
        # Everything the summary shows, so that `astest merge` can show it again.
        specs.append(f'{entry[:-1]},"result":{whole}}}')
    totals = {
        "files": {
            status.value: sum(1 for s in shown if s.result.status == status) for status in Status
        },
        "tests": {
            "passed": sum(s.result.counts.tests_passed for s in shown),
            "failed": sum(s.result.counts.tests_failed for s in shown),
            "skipped": sum(s.result.counts.tests_skipped for s in shown),
        },
        "cached": sum(1 for s in shown if s.cached),
    }
    document: dict[str, object] = {"format": REPORT_FORMAT, "totals": totals, "specs": []}
    if reports.coverage is not None:
        document["coverage"] = coverage_report_json(reports.coverage)
    if reports.shard is not None:
        # `pairs`: how many (mode, spec) pairs all N shards hold together, `split` what cut
        # them: the merge checks both. `durations_key`: where the merge publishes durations.
        shard = reports.shard
        part: dict[str, object] = {
            "index": shard.index,
            "count": shard.count,
            "pairs": shard.pairs,
            "split": shard.split,
        }
        if shard.durations_key:
            part["durations_key"] = shard.durations_key
        if shard.narrowed:
            part["narrowed"] = True  # its times are not the whole suite's: never published
        if not shard.kept_all:
            part["kept_all"] = False  # --last-failed ran part of it: not `pairs` in all
        document["shard"] = part
    head, _, rest = _compact(document).partition('"specs":[]')
    return f'{head}"specs":[{",".join(specs)}]{rest}\n'


def _compact(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


FORMAT = TextFormat(name="json", file_name=REPORT_FILE, render=report_json)
