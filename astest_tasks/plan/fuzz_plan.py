"""The fuzz part of a doit call's plan: whether fuzz tasks are made, the call's seed and runs,
how a mode's fuzz builds differ from its spec builds, and where a fuzz target's files go.

tasks/fuzz_tasks.py turns this into doit's dicts; planning.py and plan_listing.py read it
without doit.
"""

from __future__ import annotations

import posixpath
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astest_tasks.config.discovery import Spec, discover_specs
from astest_tasks.config.project_config import COVERAGE_ENV_VAR, FuzzSettings, ModeSettings
from astest_tasks.core.frozen import frozen
from astest_tasks.fuzz.fuzz_options import FuzzCallOptions
from astest_tasks.plan.command_line import CommandLine

if TYPE_CHECKING:
    from astest_tasks.fuzz.runs import RunsOverride
    from astest_tasks.output.fuzz_summary import FuzzEntry


def fuzz_group(basename: str) -> str:
    """The fuzz tasks' group of a task creator: ``astest:fuzz``."""
    return f"{basename}:fuzz"


FUZZ_SUFFIX = ".fuzz.ts"
FUZZ_FLAGS = ("--use", "AS_TEST_FUZZ=1")


@frozen
class FuzzOptions:
    """The fuzz parameters of one doit call, already checked."""

    with_tests: bool  # the plain run's summary waits for the campaigns
    seed: int
    seed_is_random: bool
    override: RunsOverride
    seed_given: bool = False  # --fuzz-seed: it wins over every mode's fuzz.seed
    fuzzers: tuple[str, ...] = ()  # --fuzzer: the fuzzers to report

    @classmethod
    def parse(cls, options: FuzzCallOptions, settings: FuzzSettings) -> FuzzOptions:
        """The call's fuzz options, completed by ``settings`` (the base config's); ``seed_of``
        gives a mode with a seed of its own."""
        # Here, not at import: only a call that makes fuzz tasks reads a seed or a run count.
        from astest_tasks.fuzz.runs import parse_runs_override, parse_seed, random_seed

        given = parse_seed(options.fuzz_seed)
        pinned = settings.seed if given is None else given
        chosen = random_seed() if pinned is None else pinned
        runs = parse_runs_override(options.fuzz_runs)
        return cls(options.fuzz, chosen, pinned is None, runs, given is not None, options.fuzzer)

    def seed_of(self, settings: FuzzSettings) -> tuple[int, bool]:
        """A mode's seed and whether it was drawn: --fuzz-seed, else the mode's fuzz.seed,
        else this call's (the base config's, or the one drawn for the call)."""
        if self.seed_given or settings.seed is None:
            return self.seed, self.seed_is_random
        return settings.seed, False


def fuzz_tasks_wanted(with_tests: bool, command_line: CommandLine, group: str) -> bool:
    """Whether to create the fuzz tasks at all.

    doit runs every task when the command line names none and the dodo sets no
    ``default_tasks``, so a fuzz group that merely exists would run on every plain ``doit``.
    The tasks are therefore made only when wanted: with ``--fuzz``, and when the call asks for
    the group (``CommandLine.asks_for``: named, by a wildcard, through the dodo's
    ``default_tasks``, or by a command that does not run tasks, so they stay visible).
    """
    return with_tests or command_line.asks_for(group, f"{group}:summary")


def fuzz_mode(mode: ModeSettings) -> ModeSettings:
    """A mode as its fuzz builds see it: bindings, AS_TEST_FUZZ, coverage off (as as-test)."""
    return replace(
        mode,
        target="bindings",
        build_args=(*mode.build_args, *FUZZ_FLAGS),
        build_env={**mode.build_env, COVERAGE_ENV_VAR: "0"},
        build_cmd="",  # as-test's fuzz build ignores buildOptions.cmd too
        coverage_enabled=False,
    )


def fuzz_targets(root: Path, settings: FuzzSettings) -> list[Spec]:
    """The fuzz files of one mode's ``fuzz.input`` (a "!" pattern there excludes nothing:
    as-test's fuzz command globs without exclusions, and config/input_warnings.py says so)."""
    return discover_specs(root, settings.input_patterns, FUZZ_SUFFIX)


def fuzz_files(mode: ModeSettings, target: Spec) -> dict[str, str]:
    """Where a fuzz target's build and result go, per mode (--list shows the wasm)."""
    stem = posixpath.join(mode.out_dir, "fuzz", target.spec_id)
    return {
        "wasm": f"{stem}.fuzz.wasm",
        "record": f"{stem}.fuzz.build.json",
        "result": f"{stem}.fuzz.result.json",
    }


@frozen
class FuzzPlan:
    """What the fuzz tasks give the rest: the run tasks to wait for and the results to show."""

    tasks: list[dict[str, Any]]
    run_tasks: list[str]
    entries: list[FuzzEntry]
