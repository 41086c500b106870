"""Which (mode, spec) pairs a doit call runs, in the order the tasks are made.

Every mode's specs (its input and ``!`` exclusions, mode_specs.py), narrowed by ``--spec``, by
``--changed=REF`` to the pairs a changed file may affect, by ``--shard=k/N`` to this shard's
pairs, and by ``--last-failed`` to those whose stored records say they did not pass; then ordered
spec by spec. Nothing here knows doit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.build.imports import ImportScanCache, scan_imports
from astest_tasks.config.as_test import AsTest
from astest_tasks.config.discovery import Spec
from astest_tasks.config.layout import SpecFiles, spec_files
from astest_tasks.config.mode_specs import ModeSpecs, specs_of_mode
from astest_tasks.config.pipeline import Pipeline
from astest_tasks.config.project_config import ModeSettings, ProjectConfig
from astest_tasks.config.shards import (
    ShardPart,
    assign_shards,
    load_durations,
    pair_key,
    split_name,
)
from astest_tasks.config.toolchain import Toolchain
from astest_tasks.core.errors import UserError
from astest_tasks.model.results import read_result_head, stored_result_path
from astest_tasks.model.snapshot_paths import snapshot_candidates
from astest_tasks.plan.cache_keys import build_file_deps
from astest_tasks.plan.selection_options import DEFAULT_REF
from astest_tasks.run.runtime import Runtime

if TYPE_CHECKING:  # --changed, --last-failed and shards load their modules alone (issue 40)
    from astest_tasks.config.changed_specs import ChangedSelection, SpecInputs
    from astest_tasks.config.last_failed import BuildState, LastFailedSelection, StoredRecords
    from astest_tasks.remote.shard_durations import SharedDurations


def specs_of(
    root: Path,
    config_path: str,
    config: ProjectConfig,
    mode: ModeSettings,
    selectors: Sequence[str],
) -> ModeSpecs:
    # as-test: a spec picked by name runs even where the base "input" excludes it.
    found = specs_of_mode(root, config, mode, base_exclusions=not selectors)
    if found.found_none:
        patterns = config.base.input_patterns
        if not config.rules.modes_are_full_configs:
            patterns = mode.input_patterns
        raise UserError(
            f"{config_path}: mode {mode.name!r}: input {list(patterns)} "
            'matches no *.spec.ts file; fix: correct "input" or add a spec under it'
        )
    return found


def check_outputs_are_separate(
    root: Path, config: ProjectConfig, selected: dict[str, list[Spec]]
) -> None:
    """Two modes writing to one folder would overwrite each other's artifacts and results.

    Checked over every declared mode, not only the selected ones: a mode run on its own later
    would otherwise replace files whose cached state still claims to be another mode's.
    """
    declared = list(config.modes.values()) or [config.base]
    owners: dict[str, str] = {}
    for mode in declared:
        specs = selected.get(mode.name)
        if specs is None:
            specs = specs_of_mode(root, config, mode).specs
        for spec in specs:
            files = spec_files(mode, spec)
            owner = f"mode {mode.name!r} spec {spec.path}"
            for path in (files.wasm, files.build_record, files.result):
                previous = owners.setdefault(path, owner)
                if previous != owner:
                    raise UserError(
                        f"{previous} and {owner} would both write {path}; fix: give each mode "
                        'its own "outDir" (or drop it to use the per-mode default)'
                    )


def spec_inputs(
    root: Path,
    modes: Sequence[ModeSettings],
    specs_by_mode: dict[str, list[Spec]],
    runtimes: dict[str, Runtime],
    toolchain: Toolchain,
    as_test: AsTest,
    scan_cache: ImportScanCache,
) -> list[SpecInputs]:
    """What decides each (mode, spec) pair's result: the files of its build (the spec, its
    imports, the asconfig), its snapshots, its runner, and what its build arguments name."""
    from astest_tasks.config.changed_specs import SpecInputs, argument_paths, project_paths

    rules = as_test.run
    inputs: list[SpecInputs] = []
    for mode in modes:
        runner = project_paths(root, runtimes[mode.name].input_files(root))
        named_files, named_folders = argument_paths(root, [*mode.build_args, mode.build_cmd])
        layout = (root, mode.input_patterns) if rules.snapshot_input_layout else None
        for spec in specs_by_mode[mode.name]:
            scan = scan_imports(root, spec.path, scan_cache)
            build = build_file_deps(root, mode, scan, toolchain)
            snapshots = snapshot_candidates(spec.path, mode.snapshot_dir, layout)
            files = project_paths(root, [*build, *snapshots]) | runner | named_files
            inputs.append(SpecInputs(mode.name, spec, files, named_folders))
    return inputs


def changed_only(
    root: Path, config_path: str, ref: str, inputs: Sequence[SpecInputs]
) -> ChangedSelection:
    """``--changed=REF``: the pairs that a file differing from REF in git may affect."""
    from astest_tasks.config.changed_specs import project_paths, select_changed
    from astest_tasks.config.git_changes import changed_files

    changed = changed_files(root, ref or DEFAULT_REF)
    config = next(iter(project_paths(root, [config_path])))
    return select_changed(inputs, changed.paths, changed.ref, config)


def shard_of(
    root: Path,
    specs_by_mode: dict[str, list[Spec]],
    pipeline: Pipeline,
    shared: SharedDurations | None,
    warn: Callable[[str], None],
) -> tuple[dict[str, list[Spec]], ShardPart]:
    """Only the (mode, spec) pairs of this shard (shards.py), and what its report says of them:
    split by the --shard-durations file, else by what a merge published to ``shared``."""
    assert pipeline.shard is not None
    durations: Mapping[str, float] = {}
    if pipeline.shard_durations:
        durations = load_durations(root / pipeline.shard_durations)
    elif shared is not None:
        durations = shared.read(warn)
    keys = [pair_key(mode, spec.spec_id) for mode, specs in specs_by_mode.items() for spec in specs]
    shard = pipeline.shard
    assigned = assign_shards(keys, shard.count, durations)
    part = ShardPart(
        shard.index,
        shard.count,
        len(keys),
        split=split_name(assigned, by_durations=bool(durations)),
        durations_key=shared.key if shared else "",
    )
    mine = {
        mode: [s for s in specs if assigned[pair_key(mode, s.spec_id)] == shard.index]
        for mode, specs in specs_by_mode.items()
    }
    return mine, part


def last_failed_only(
    root: Path, modes: Sequence[ModeSettings], specs_by_mode: Mapping[str, Sequence[Spec]]
) -> LastFailedSelection:
    """``--last-failed``: the pairs whose records in their output folders say they did not pass
    (config/last_failed.py), or all of them when none did."""
    from astest_tasks.config.last_failed import last_outcome, select_last_failed

    outcomes = {
        (mode.name, spec.path): last_outcome(
            mode.name, spec, stored_records(root, mode.name, spec, spec_files(mode, spec))
        )
        for mode in modes
        for spec in specs_by_mode[mode.name]
    }
    return select_last_failed(outcomes)


def stored_records(root: Path, mode: str, spec: Spec, files: SpecFiles) -> StoredRecords:
    """The pair's result and build records as their readers find them. Only a regular file is
    opened (a FIFO would block the planning); anything else there counts as unreadable."""
    from astest_tasks.config.last_failed import StoredRecords

    result_path = stored_result_path(root / files.result)
    result = read_result_head(result_path) if result_path.is_file() else None
    return StoredRecords(
        result_stored=_present(result_path),
        result=result,
        build=_build_state(root, mode, spec, files.build_record),
    )


def _build_state(root: Path, mode: str, spec: Spec, record_path: str) -> BuildState:
    # Only --last-failed reads build records here: the compiler's module loads with it alone,
    # not with every call's plan (a no-change run never compiles).
    from astest_tasks.build.compiler import read_build_record
    from astest_tasks.config.last_failed import BuildState

    path = root / record_path
    if not _present(path):
        return BuildState.NONE
    record = read_build_record(root, record_path) if path.is_file() else None
    if record is None or record.mode != mode or record.spec != spec.path:
        return BuildState.FAILED  # unreadable, or edited to name another pair: not trusted
    return BuildState.BUILT if record.ok else BuildState.FAILED


def _present(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def spec_by_spec(
    modes: Sequence[ModeSettings], specs_by_mode: Mapping[str, Sequence[Spec]]
) -> list[tuple[ModeSettings, Spec]]:
    """Every (mode, spec), each spec in all its modes before the next spec (in the order the
    specs first appear), its modes in the config's order."""
    first_seen: dict[str, int] = {}
    pairs: list[tuple[int, int, ModeSettings, Spec]] = []
    for mode_index, mode in enumerate(modes):
        for spec in specs_by_mode[mode.name]:
            spec_index = first_seen.setdefault(spec.path, len(first_seen))
            pairs.append((spec_index, mode_index, mode, spec))
    pairs.sort(key=lambda pair: pair[:2])
    return [(mode, spec) for _, _, mode, spec in pairs]
