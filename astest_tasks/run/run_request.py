"""What one run task asks: which spec, its files, its limits, its snapshots, and how to name it.

A frozen dataclass of plain data and small records, so ``doit -n N`` (and the run ahead's helper
process) can be handed it under any multiprocessing start method. No field has a default: every
value is decided once, when the tasks are planned (planning.py, spec_tasks.py).
"""

from __future__ import annotations

from pathlib import Path

from astest_tasks.config.as_test import AsTest
from astest_tasks.config.layout import SpecFiles
from astest_tasks.config.pipeline import Pipeline, task_command
from astest_tasks.config.run_rules import RunRules
from astest_tasks.core.frozen import frozen
from astest_tasks.model.results import SpecIdentity
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.run.limits import ModeLimits
from astest_tasks.run.runtime import Runtime


@frozen
class SnapshotChoice:
    """Where the spec's snapshots are and what this run does with them."""

    directory: str  # the mode's snapshot folder
    files: tuple[str, ...]  # every file the spec's snapshots may come from
    update: SnapshotUpdate
    no_snapshot: bool  # --no-snapshot: snapshot assertions pass uncompared
    input_patterns: tuple[str, ...]  # the mode's input globs: as-test 1.2.0+ snapshot paths


@frozen
class Progress:
    """This run's place, for the live progress line."""

    position: int  # among the run tasks: the count where none can be kept
    total: int  # the run tasks of this invocation (0: no line)
    counter_file: str  # counts finished specs across doit's workers (progress.py)


@frozen
class RunRequest:
    project_root: str
    spec: SpecIdentity
    files: SpecFiles
    runtime: Runtime  # the mode's, chosen once when the tasks were made (runtime_command.py)
    limits: ModeLimits
    run_env: dict[str, str]
    snapshots: SnapshotChoice
    progress: Progress
    crash_dir: str
    logs_dir: str | None  # readable per-spec logs; None when the config says "none"
    pipeline: Pipeline  # names the tasks and the command in hints (`doit astest --timeout 5`)
    as_test: AsTest  # the installed as-test, whose run-side rules apply (run_rules.py)
    coverage_detail: bool  # --show-coverage: ask a 1.8 guest for the gap tree's points

    @property
    def rules(self) -> RunRules:
        return self.as_test.run

    def snapshot_input_layout(self) -> tuple[Path, tuple[str, ...]] | None:
        """(project root, input patterns) where as-test 1.2.0+ places snapshot files, else None."""
        if not self.rules.snapshot_input_layout:
            return None
        return Path(self.project_root), self.snapshots.input_patterns

    def task(self, kind: str) -> str:
        return self.pipeline.task(f"{kind}:{self.spec.mode}:{self.spec.spec_id}")

    def task_command(self, kind: str) -> str:
        """The command line that runs this spec's ``kind`` task (quoted: config/pipeline.py)."""
        return task_command(self.pipeline.command, self.task(kind))
