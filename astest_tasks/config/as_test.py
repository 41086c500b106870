"""The installed as-test of one call, as one record: its version and every rule that follows.

Made once when a call is planned (plan/planning.py) from the version Node would load, and
carried whole: the config is read by its config rules (``as_test_rules.py``), each run task gets
it in its request and counts, finds snapshots and ends by its run rules (``run_rules.py``), and
the run key names its version. Before this record the version text was parsed again wherever a
rule was asked (about seven times per run), and the two rule sets disagreed on a project with no
as-test installed; here an unknown version means the newest tested for both, since installing
as-test now gets that one.
"""

from __future__ import annotations

from pathlib import Path

from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.as_test_version import AsTestVersion, installed_version
from astest_tasks.config.run_rules import RunRules
from astest_tasks.core.frozen import frozen


@frozen
class AsTest:
    """as-test as this call found it."""

    version: str  # as its package.json says; "" when none is installed
    config: AsTestRules  # which config keys exist and how modes merge
    run: RunRules  # how a run is counted and its snapshots found

    @classmethod
    def of(cls, version: AsTestVersion | None) -> AsTest:
        """The record of ``version``; None (not installed) takes the newest tested's rules."""
        return cls(
            version="" if version is None else str(version),
            config=AsTestRules.for_version(version),
            run=RunRules.for_version(version),
        )

    @classmethod
    def parse(cls, text: str) -> AsTest:
        """``text`` as a package.json gives it; "" means none installed."""
        return cls.of(AsTestVersion.parse(text) if text else None)

    @classmethod
    def installed(cls, project_root: Path) -> AsTest:
        return cls.of(installed_version(project_root))
