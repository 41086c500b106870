"""doit tasks for fuzz targets: ``astest:fuzz:<mode>:<file-id>``, their builds and a summary.

They live in a task group of their own, ``astest:fuzz``, rather than under ``astest``: a plain
``doit`` runs the ``astest`` group, and fuzz campaigns take long enough that as-test too runs
them only when asked (``ast fuzz``, or ``ast test --fuzz``). ``doit astest:fuzz`` runs them;
``--fuzz`` (or ``fuzz = true`` in doit's config) makes the plain run's summary depend on them.

A campaign whose seed was drawn at random is never up to date: a cached pass would claim inputs
were tried that never were. A pinned seed with unchanged inputs may be skipped like a spec.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from doit.task import clean_targets

from astest_tasks.actions.doors import (
    remove_fuzz_leftovers,
    run_fuzz_file,
    show_fuzz_summary_from_worker,
    summarize_fuzz,
)
from astest_tasks.actions.fuzz_actions import FuzzRunRequest
from astest_tasks.build.imports import ImportScanCache
from astest_tasks.config.discovery import Spec
from astest_tasks.config.layout import doit_paths
from astest_tasks.config.pipeline import Pipeline, task_doc
from astest_tasks.config.project_config import ModeSettings
from astest_tasks.config.toolchain import Toolchain, warn_once
from astest_tasks.core.records import encode
from astest_tasks.core.version import __version__
from astest_tasks.fuzz.runs import (
    FuzzCampaign,
)
from astest_tasks.model.results import SpecIdentity
from astest_tasks.output.fuzz_summary import FuzzEntry
from astest_tasks.plan.fuzz_plan import (
    FuzzOptions,
    FuzzPlan,
    fuzz_files,
    fuzz_group,
    fuzz_mode,
    fuzz_targets,
)
from astest_tasks.run.limits import ModeLimits
from astest_tasks.tasks.build_task import build_request, compile_task_fields
from astest_tasks.tasks.checks import Always, BuildUpToDate, InputsChanged, LastFuzzPassed


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
        "doc": task_doc(
            f"compile fuzz target {target.path} for mode {mode.name} (bindings, AS_TEST_FUZZ)"
        ),
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
    return {
        "basename": request.group,
        "name": f"{fuzz_file.mode}:{fuzz_file.spec_id}",
        "doc": task_doc(f"fuzz {fuzz_file.path} in mode {fuzz_file.mode} ({seed_text})"),
        "actions": [(run_fuzz_file, [request, session])],
        "file_dep": doit_paths(root, [request.build_record_path]),
        "targets": doit_paths(root, [request.result_path]),
        # The result, and the crash records of the campaign and its failing fuzzers.
        "clean": [
            clean_targets,
            (
                remove_fuzz_leftovers,
                [str(root), request.crash_dir, fuzz_file.spec_id, fuzz_file.mode],
            ),
        ],
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
