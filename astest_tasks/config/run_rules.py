"""The run-side rules of the installed as-test: how a spec's report is counted, how its snapshots
are found and keyed, and what a runtime that ends without a report means.

Made once when tasks are created, as part of the ``AsTest`` record (``as_test.py``) that the run
action gets whole; its version is part of the run's cache key, so a project that upgrades
as-test re-runs its specs under the new rules.

Each rule names the as-test release that introduced it (its CHANGELOG):

- 1.1.6: the guest keys snapshots by its full relative path; lookup replaces that prefix with
  the spec's basename, so ``.snap`` files written before still match.
- 1.2.0: snapshot files mirror the spec's path under its input glob's static base, and the
  legacy ``.snap.json`` fallbacks are gone.
- 1.4.0: every ``describe``/``test``/``it``/``only`` block (skip variants too) is a suite and
  each ``expect()`` is a test; before, a test case was a test and an empty one counted as one.
- 1.5.1: a runtime that sent no report and stopped before ``event:file-end`` failed; one that
  reached it gets a report rebuilt from its streamed events.
- 1.5.3: a spec that sent nothing at all and exited cleanly is an empty file: skipped, warned.
"""

from __future__ import annotations

from astest_tasks.config.as_test_version import NEWEST_TESTED, AsTestVersion
from astest_tasks.core.frozen import frozen


@frozen
class RunRules:
    version: str
    snapshot_prefix_normalized: bool  # 1.1.6
    snapshot_input_layout: bool  # 1.2.0
    every_block_is_suite: bool  # 1.4.0
    events_rebuild_report: bool  # 1.5.1
    empty_file_skips: bool  # 1.5.3

    @classmethod
    def for_version(cls, version: AsTestVersion | None) -> RunRules:
        """The rules of ``version``; without one (not installed yet), the newest tested, as the
        config rules (as_test_rules.py) take."""
        version = version or AsTestVersion.parse(NEWEST_TESTED)
        return cls(
            version=str(version),
            snapshot_prefix_normalized=version.at_least("1.1.6"),
            snapshot_input_layout=version.at_least("1.2.0"),
            every_block_is_suite=version.at_least("1.4.0"),
            events_rebuild_report=version.at_least("1.5.1"),
            empty_file_skips=version.at_least("1.5.3"),
        )
