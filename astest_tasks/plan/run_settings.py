"""What one doit call asks of every run task: its limits per mode and its one-run switches.

Read once when the tasks are planned (planning.py); the run tasks, their cache keys and the
fuzz runs take their values from here, so each option is parsed in one place.
"""

from __future__ import annotations

from astest_tasks.config.as_test import AsTest
from astest_tasks.config.pipeline import Pipeline
from astest_tasks.config.project_config import ProjectConfig
from astest_tasks.config.run_switches import RunSwitches
from astest_tasks.core.frozen import frozen
from astest_tasks.remote.remote_use import RemoteUse
from astest_tasks.run.limit_options import LimitOptions
from astest_tasks.run.limits import (
    MEMORY_LIMIT,
    OUTPUT_LIMIT,
    TIMEOUT,
    ModeLimits,
    PerMode,
    parse_per_mode,
)


@frozen
class RunLimits:
    """The limit options (``10,web=30``), read once the config's modes are known."""

    timeout_s: PerMode
    memory_mib: PerMode
    output_mib: PerMode

    @classmethod
    def parse(cls, options: LimitOptions, config: ProjectConfig) -> RunLimits:
        modes = {config.base.name, *config.modes}
        return cls(
            timeout_s=parse_per_mode(options.timeout, TIMEOUT, modes),
            memory_mib=parse_per_mode(options.memory_limit, MEMORY_LIMIT, modes),
            output_mib=parse_per_mode(options.output_limit, OUTPUT_LIMIT, modes),
        )

    def of_mode(self, mode: str) -> ModeLimits:
        return ModeLimits(
            self.timeout_s.for_mode(mode),
            self.memory_mib.for_mode(mode),
            self.output_mib.for_mode(mode),
        )


@frozen
class RunSettings:
    """What this doit call asked of every run task."""

    limits: RunLimits
    session: str  # marks results written by this doit call as fresh
    switches: RunSwitches  # --no-snapshot, --update-snapshots, --show-coverage: every run's
    progress_file: str  # counts finished specs across doit's workers, for the live lines
    pipeline: Pipeline
    as_test: AsTest  # the installed as-test: its run-side rules apply (run_rules.py)
    remote: RemoteUse | None = None  # --remote-cache: the shared cache builds and runs ask first
    # doit settles each build before it checks the build's run in this call (a plain run): the
    # run's own check of its build would ask again what doit has just found (spec_tasks.py).
    builds_checked_first: bool = False
