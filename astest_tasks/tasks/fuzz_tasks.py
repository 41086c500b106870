"""doit tasks for fuzz targets: ``astest:fuzz:<mode>:<file-id>``, their builds and a summary.

They live in a task group of their own, ``astest:fuzz``, rather than under ``astest``: a plain
``doit`` runs the ``astest`` group, and fuzz campaigns take long enough that as-test too runs
them only when asked (``ast fuzz``, or ``ast test --fuzz``). ``doit astest:fuzz`` runs them;
``--fuzz`` (or ``fuzz = true`` in doit's config) makes the plain run's summary depend on them.

A campaign whose seed was drawn at random is never up to date: a cached pass would claim inputs
were tried that never were. A pinned seed with unchanged inputs may be skipped like a spec.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from doit.task import clean_targets

from astest_tasks.build.imports import ImportScanCache
from astest_tasks.config.discovery import Spec, discover_specs
from astest_tasks.config.layout import doit_paths
from astest_tasks.config.pipeline import Pipeline
from astest_tasks.config.project_config import COVERAGE_ENV_VAR, FuzzSettings, ModeSettings
from astest_tasks.config.toolchain import Toolchain, warn_once
from astest_tasks.core.records import encode
from astest_tasks.core.version import __version__
from astest_tasks.fuzz.runs import (
    FuzzCampaign,
    RunsOverride,
    parse_runs_override,
    parse_seed,
    random_seed,
)
from astest_tasks.model.results import SpecIdentity
from astest_tasks.output.fuzz_summary import FuzzEntry
from astest_tasks.run.limits import ModeLimits
from astest_tasks.tasks.build_task import build_request, compile_task_fields
from astest_tasks.tasks.checks import Always, BuildUpToDate, InputsChanged, LastFuzzPassed
from astest_tasks.tasks.cleaning import fuzz_leftovers, remove_files
from astest_tasks.tasks.doit_argv import default_tasks, doit_command, names_tasks_under
from astest_tasks.tasks.fuzz_actions import FuzzRunRequest, run_fuzz_file
from astest_tasks.tasks.fuzz_summary_action import show_fuzz_summary_from_worker, summarize_fuzz


def fuzz_group(basename: str) -> str:
    """The fuzz tasks' group of a task creator: ``astest:fuzz``."""
    return f"{basename}:fuzz"


FUZZ_SUFFIX = ".fuzz.ts"
FUZZ_FLAGS = ("--use", "AS_TEST_FUZZ=1")


@dataclass(frozen=True)
class FuzzOptions:
    """The fuzz parameters of one doit call, already checked."""

    with_tests: bool  # the plain run's summary waits for the campaigns
    seed: int
    seed_is_random: bool
    override: RunsOverride
    seed_given: bool = False  # --fuzz-seed: it wins over every mode's fuzz.seed
    fuzzers: tuple[str, ...] = ()  # --fuzzer: the fuzzers to report

    @classmethod
    def parse(cls, with_tests: bool, seed: str, runs: str, settings: FuzzSettings) -> FuzzOptions:
        """``settings``: the base config's; ``seed_of`` gives a mode with a seed of its own."""
        given = parse_seed(seed)
        pinned = settings.seed if given is None else given
        chosen = random_seed() if pinned is None else pinned
        return cls(with_tests, chosen, pinned is None, parse_runs_override(runs), given is not None)

    def seed_of(self, settings: FuzzSettings) -> tuple[int, bool]:
        """A mode's seed and whether it was drawn: --fuzz-seed, else the mode's fuzz.seed,
        else this call's (the base config's, or the one drawn for the call)."""
        if self.seed_given or settings.seed is None:
            return self.seed, self.seed_is_random
        return settings.seed, False


@dataclass
class FuzzPlan:
    """What the fuzz tasks give the rest: the run tasks to wait for and the results to show."""

    tasks: list[dict[str, Any]]
    run_tasks: list[str]
    entries: list[FuzzEntry]


def fuzz_tasks_wanted(with_tests: bool, arguments: Sequence[str], group: str) -> bool:
    """Whether to create the fuzz tasks at all.

    doit runs every task when the command line names none and the dodo sets no
    ``default_tasks``, so a fuzz group that merely exists would run on every plain ``doit``.
    The tasks are therefore made only when wanted: with ``--fuzz``, when the command line names
    them (``doit astest:fuzz``, ``doit astest:fuzz:wasi:math``) or the dodo's
    ``default_tasks`` do, and for every command that does not run tasks (``list``, ``info``,
    ``clean``, ``forget``, …), so they stay visible.
    """
    if with_tests or doit_command(arguments) != "run":
        return True
    example = f"{group}:summary"
    # A plain `doit` runs the dodo's default_tasks, which may name the fuzz group.
    return names_tasks_under(arguments, group, example) or names_tasks_under(
        default_tasks(arguments), group, example
    )


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


def fuzz_tasks(
    root: Path,
    modes: Sequence[ModeSettings],
    toolchain: Toolchain,
    scan_cache: ImportScanCache,
    limits_of: dict[str, ModeLimits],
    options: FuzzOptions,
    session: str,
    pipeline: Pipeline,
) -> FuzzPlan:
    plan = FuzzPlan(tasks=[], run_tasks=[], entries=[])
    group = fuzz_group(pipeline.basename)
    # as-test 1.0.14+: each mode fuzzes its own fuzz.input with its own runs and seed.
    files_of = {mode.name: fuzz_targets(root, mode.fuzz) for mode in modes}
    if not any(files_of.values()):
        for settings in {mode.fuzz for mode in modes if mode.fuzz.explicit_input}:
            warn_once(
                f"fuzz.input {list(settings.input_patterns)} matches no *.fuzz.ts file, so there "
                "is nothing to fuzz; fix the pattern or add a fuzz target under it"
            )
        return plan
    plan.tasks.append(
        {"basename": group, "name": None, "doc": "run every fuzz target (as-test fuzz)"}
    )
    for mode in modes:
        built_as = fuzz_mode(mode)
        seed = options.seed_of(mode.fuzz)
        for target in files_of[mode.name]:
            paths = fuzz_files(mode, target)
            plan.tasks.append(
                _build_task(root, built_as, target, paths, toolchain, scan_cache, pipeline)
            )
            request = _fuzz_run_request(
                root, mode, target, paths, limits_of[mode.name], seed, options, pipeline
            )
            plan.tasks.append(_run_task(root, request, session, pipeline))
            plan.run_tasks.append(request.task_name)
            plan.entries.append(
                FuzzEntry(
                    mode.name,
                    target.spec_id,
                    target.path,
                    paths["result"],
                    group,
                    pipeline.command,
                    options.fuzzers,
                )
            )
    plan.tasks.append(_fuzz_summary_task(root, plan, session, pipeline))
    return plan


def _fuzz_run_request(
    root: Path,
    mode: ModeSettings,
    target: Spec,
    paths: dict[str, str],
    limits: ModeLimits,
    seed: tuple[int, bool],
    options: FuzzOptions,
    pipeline: Pipeline,
) -> FuzzRunRequest:
    """``seed``: the mode's seed, and whether it was drawn at random (FuzzOptions.seed_of)."""
    return FuzzRunRequest(
        project_root=str(root),
        fuzz_file=SpecIdentity(target.path, target.spec_id, mode.name, "bindings"),
        wasm_path=paths["wasm"],
        build_record_path=paths["record"],
        result_path=paths["result"],
        crash_dir=mode.crash_dir,
        limits=limits,
        campaign=FuzzCampaign(mode.fuzz_runs, seed[0], seed[1], options.override),
        group=fuzz_group(pipeline.basename),
        command=pipeline.command,
        options_command=pipeline.options_command,
    )


def _fuzz_summary_task(
    root: Path, plan: FuzzPlan, session: str, pipeline: Pipeline
) -> dict[str, Any]:
    summary = {"project_root": str(root), "entries": [encode(entry) for entry in plan.entries]}
    return {
        "basename": fuzz_group(pipeline.basename),
        "name": "summary",
        "doc": "print every fuzz campaign's result and fail if one failed",
        "actions": [(summarize_fuzz, [summary, session])],
        "teardown": [(show_fuzz_summary_from_worker, [summary, session])],
        "task_dep": list(plan.run_tasks),
        "uptodate": [Always(False, "the fuzz summary always runs")],
        "verbosity": 2,
        "meta": pipeline.meta("fuzz-summary"),
    }


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


def _build_task(
    root: Path,
    mode: ModeSettings,
    target: Spec,
    paths: dict[str, str],
    toolchain: Toolchain,
    scan_cache: ImportScanCache,
    pipeline: Pipeline,
) -> dict[str, Any]:
    request = build_request(root, mode, target, paths["wasm"], paths["record"])
    fields, _ = compile_task_fields(root, request, mode, target, toolchain, scan_cache)
    return {
        "basename": fuzz_group(pipeline.basename),
        "name": f"build:{mode.name}:{target.spec_id}",
        "doc": f"compile fuzz target {target.path} for mode {mode.name} (bindings, AS_TEST_FUZZ)",
        **fields,
        "task_dep": list(pipeline.task_dep),
        "meta": pipeline.meta(
            "fuzz-build", mode=mode.name, spec=target.path, spec_id=target.spec_id
        ),
    }


def _run_task(
    root: Path, request: FuzzRunRequest, session: str, pipeline: Pipeline
) -> dict[str, Any]:
    campaign, fuzz_file = request.campaign, request.fuzz_file
    seed_text = "a random seed" if campaign.seed_is_random else f"seed {campaign.seed}"
    leftovers = fuzz_leftovers(request.crash_dir, fuzz_file.spec_id, fuzz_file.mode)
    return {
        "basename": request.group,
        "name": f"{fuzz_file.mode}:{fuzz_file.spec_id}",
        "doc": f"fuzz {fuzz_file.path} in mode {fuzz_file.mode} ({seed_text})",
        "actions": [(run_fuzz_file, [request, session])],
        "file_dep": doit_paths(root, [request.build_record_path]),
        "targets": doit_paths(root, [request.result_path]),
        # The result, and the crash records of the campaign and its failing fuzzers.
        "clean": [clean_targets, (remove_files, [str(root), leftovers])],
        "uptodate": [
            InputsChanged("fuzz", _run_key(request)),
            LastFuzzPassed(str(root), request.result_path),
            BuildUpToDate(f"{request.group}:build:{fuzz_file.mode}:{fuzz_file.spec_id}"),
            Always(
                not campaign.seed_is_random,
                "the seed is random: a campaign with a random seed always runs",
            ),
        ],
        "setup": list(pipeline.setup),
        "meta": pipeline.meta(
            "fuzz", mode=fuzz_file.mode, spec=fuzz_file.path, spec_id=fuzz_file.spec_id
        ),
    }


def _run_key(request: FuzzRunRequest) -> dict[str, Any]:
    return {
        "astest_tasks": __version__,
        "file": request.fuzz_file.path,
        "mode": request.fuzz_file.mode,
        "runs": request.campaign.runs,
        "seed": None if request.campaign.seed_is_random else request.campaign.seed,
        "override": [int(request.campaign.override.kind), request.campaign.override.value],
        "limits": list(request.limits.as_key()),
    }
