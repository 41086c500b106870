"""as-test 1.8's switches for one run: ``--no-snapshot``, ``--show-coverage[=all]``, ``--browser``.

- ``--no-snapshot`` (``ASTEST_NO_SNAPSHOT=1``): as-test 1.8's run-core answers every
  ``snapshot:assert`` "ok" with the value itself and counts nothing (docs/design/host-contract.md
  §6). Such a run proves nothing about snapshots, so its key differs from a plain run's: the next
  plain run runs those specs again instead of showing the unchecked pass as cached.
- ``--show-coverage`` (``ASTEST_SHOW_COVERAGE``): the uncovered points under the coverage
  summary; ``all`` lists every one, the plain form folds points inside an uncovered function into
  it, as 1.8's collapsed tree does. Like 1.8, it turns coverage on unless coverage is switched
  off.
- ``--browser NAME|PATH`` (``ASTEST_BROWSER``): the browser of web modes for this run, over
  ``BROWSER`` and ``runOptions.runtime.browser`` (1.8's ``ensureWebBrowsersReady`` puts the
  ``--browser`` value first).
"""

from __future__ import annotations

from enum import Enum

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.model.snapshot_update import SnapshotUpdate


class ShowCoverage(Enum):
    NONE = ""
    COLLAPSED = "collapsed"  # 1.8's --show-coverage
    ALL = "all"  # --show-coverage=all

    @classmethod
    def parse(cls, text: str) -> ShowCoverage:
        word = text.strip().lower()
        if word in ("", "0", "off", "no", "false"):
            return cls.NONE
        if word in ("1", "on", "yes", "true", "collapsed"):
            return cls.COLLAPSED
        if word == "all":
            return cls.ALL
        raise UserError(
            f"--show-coverage / ASTEST_SHOW_COVERAGE: {text!r} is not a choice; fix: use `on` "
            "(uncovered points, nested ones folded into their function) or `all` (every point)"
        )


@frozen
class RunSwitches:
    """This call's switches of every run, read once: planning hands them whole to the run
    settings, and each run task takes from there what its key and its action need."""

    no_snapshot: bool = False
    show_coverage: ShowCoverage = ShowCoverage.NONE
    browser: str = ""  # "" = BROWSER, else the config's runOptions.runtime.browser
    update: SnapshotUpdate = SnapshotUpdate.NONE  # --update-snapshots (as-test's spellings too)

    @property
    def coverage_detail(self) -> bool:
        """--show-coverage: a 1.8 guest is asked for the points the gap tree draws."""
        return self.show_coverage is not ShowCoverage.NONE

    @classmethod
    def parse(
        cls, no_snapshot: bool, show_coverage: str, browser: str, update: SnapshotUpdate
    ) -> RunSwitches:
        if no_snapshot and update is not SnapshotUpdate.NONE:
            raise UserError(
                f"--no-snapshot with --update-snapshots={update.value}: a run without snapshot "
                "assertions cannot write them; fix: drop one of the two"
            )
        return cls(no_snapshot, ShowCoverage.parse(show_coverage), browser.strip(), update)


NO_RUN_SWITCHES = RunSwitches()
