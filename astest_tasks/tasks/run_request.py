"""What one run task asks: the spec, its mode, its files and its limits.

A frozen dataclass of plain data, so ``doit -n N`` (and the run ahead's helper process) can be
handed it under any multiprocessing start method.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from astest_tasks.config.run_rules import RunRules
from astest_tasks.run.runtime import Runtime


@dataclass(frozen=True)
class RunRequest:
    project_root: str
    spec_path: str
    spec_id: str
    mode: str
    target: str
    wasm_path: str
    build_record_path: str
    result_path: str
    snapshot_dir: str
    timeout_s: float
    runtime: Runtime  # the mode's, chosen once when the tasks were made (runtime_command.py)
    memory_limit_mib: float = 1024.0
    output_limit_mib: float = 64.0
    run_env: dict[str, str] = field(default_factory=dict)
    total: int = 0  # the run tasks of this invocation, for the live progress line (0: no line)
    progress_file: str = ""  # counts finished specs across doit's workers (progress.py)
    position: int = 0  # this spec's place among the run tasks: the count where none can be kept
    crash_dir: str = ".as-test/crashes"
    logs_dir: str | None = None  # readable per-spec logs; None when the config says "none"
    update_snapshots: str = ""  # "", "create" or "overwrite" (SnapshotUpdate)
    no_snapshot: bool = False  # --no-snapshot: snapshot assertions pass uncompared
    snapshot_files: tuple[str, ...] = ()  # every file the spec's snapshots may come from
    task_basename: str = "astest"  # the task creator's name: <basename>:run:<mode>:<spec-id>
    command: str = "doit"  # what runs these tasks, for the hints: doit, or the astest command
    options_command: str = "doit astest"  # how a hint gives an option: `doit astest --timeout 5`
    # The installed as-test, whose run-side rules apply (run_rules.py); "" means 1.0.7's.
    as_test_version: str = ""
    input_patterns: tuple[str, ...] = ()  # the mode's input globs: as-test 1.2.0+ snapshot paths
    coverage_detail: bool = False  # --show-coverage: ask a 1.8 guest for the gap tree's points

    @property
    def rules(self) -> RunRules:
        return RunRules.for_version(self.as_test_version)

    def snapshot_input_layout(self) -> tuple[Path, tuple[str, ...]] | None:
        """(project root, input patterns) where as-test 1.2.0+ places snapshot files, else None."""
        if not self.rules.snapshot_input_layout:
            return None
        return Path(self.project_root), self.input_patterns

    def task(self, kind: str) -> str:
        return f"{self.task_basename}:{kind}:{self.mode}:{self.spec_id}"
