"""``--list`` / ``--list-modes``: print what a run would do instead of doing it.

As as-test 1.8's ``listExecutionPlan`` (``bin/index.js``): an ``as-test plan`` heading with the
command, config and selectors; with ``--list-modes`` the configured modes (``(default)`` or
``(manual)``), the selected ones and, on a plain run, the ones selected by default; with
``--list`` the resolved spec files and per selected mode its target, output folder, runtime,
env overrides and artifacts; with ``--fuzz`` too, the fuzz plan as ``ast fuzz --list`` prints it
(the fuzz files, and per mode the bindings target and the fuzz builds). We add what a run here
would also use (features, coverage) and each spec's last stored result, which is what can be
known without asking doit's state: a passed one is shown from the cache unless an input
changed, a failed or missing one runs.

The task creator then yields one task that prints the plan, and no build or run task: nothing
is built, run, written or locked.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from astest_tasks.config.as_test import AsTest
from astest_tasks.config.coverage_switch import with_coverage
from astest_tasks.config.discovery import Spec
from astest_tasks.config.feature_switches import FeatureSwitches
from astest_tasks.config.layout import spec_files
from astest_tasks.config.mode_specs import Exclusion, specs_of_mode
from astest_tasks.config.project_config import (
    ModeSettings,
    ProjectConfig,
    load_config,
    select_modes,
    split_mode_names,
)
from astest_tasks.config.selection import select_specs
from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import for_stream, inert_field
from astest_tasks.model.results import Status, read_result
from astest_tasks.plan.fuzz_plan import fuzz_files, fuzz_mode, fuzz_targets
from astest_tasks.run.runtime_command import resolve_runtime


@frozen
class PlanRequest:
    files: bool = False  # --list
    modes: bool = False  # --list-modes
    fuzz: bool = False  # --fuzz: the run includes the fuzz campaigns, so the plan lists them

    @property
    def wanted(self) -> bool:
        return self.files or self.modes


@frozen
class PlanInput:
    """What the plan is of: the loaded config and this call's choices."""

    root: Path
    config: ProjectConfig
    requested_modes: Sequence[str]
    selected: Sequence[ModeSettings]  # features and coverage switches applied
    spec_selectors: Sequence[str]
    command: str  # e.g. "doit astest" or "astest"
    browser: str = ""  # --browser


def load_plan_input(
    root: Path,
    config_path: str,
    requested_modes: Sequence[str],
    spec_selectors: Sequence[str],
    switches: tuple[FeatureSwitches, bool | None, str],
    command: str,
) -> PlanInput:
    """The config and modes as ``create_tasks`` reads them (``switches``: the feature switches,
    the coverage switch and the browser), without touching the toolchain or any output."""
    features, coverage, browser = switches
    rules = AsTest.installed(root).config
    config = load_config(root / config_path, root, rules)
    features.check_supported(rules)
    selected = [
        with_coverage(features.apply(mode), coverage)
        for mode in select_modes(config, requested_modes)
    ]
    return PlanInput(root, config, requested_modes, selected, spec_selectors, command, browser)


def plan_text(request: PlanRequest, plan: PlanInput) -> str:
    selectors = ", ".join(plan.spec_selectors) or "(configured input patterns)"
    lines = [
        "as-test plan",
        f"command: {plan.command}",
        f"config: {plan.config.path}",
        f"selectors: {selectors}",
        "",
    ]
    if request.modes:
        lines += _mode_lines(plan)
    if request.files:
        lines += _file_lines(plan)
    if request.files and request.fuzz:
        lines += _fuzz_lines(plan)
    return "\n".join(lines).rstrip("\n") + "\n"


def _mode_lines(plan: PlanInput) -> list[str]:
    config = plan.config
    lines = ["Configured modes:"]
    if not config.modes:
        lines.append("  - default")
    for name, mode in config.modes.items():
        lines.append(f"  - {name} ({'default' if mode.is_default else 'manual'})")
    lines += ["", "Selected modes:", *(f"  - {mode.name}" for mode in plan.selected), ""]
    if not split_mode_names(plan.requested_modes) and config.modes:
        by_default = [mode.name for mode in select_modes(config, ())] or ["default"]
        lines += ["Default-selected modes:", *(f"  - {name}" for name in by_default), ""]
    return lines


def _file_lines(plan: PlanInput) -> list[str]:
    found = {
        mode.name: specs_of_mode(
            plan.root, plan.config, mode, base_exclusions=not plan.spec_selectors
        )
        for mode in plan.selected
    }
    specs_by_mode = {
        name: select_specs(specs.specs, plan.spec_selectors, name) for name, specs in found.items()
    }
    excluded_by_mode = {
        name: [e for e in specs.excluded if select_specs([e.spec], plan.spec_selectors, name)]
        for name, specs in found.items()
    }
    every = sorted(
        {spec.path for specs in specs_by_mode.values() for spec in specs}
        | {e.spec.path for excluded in excluded_by_mode.values() for e in excluded}
    )
    lines = ["Resolved files:", *(f"  - {inert_field(path)}" for path in every), ""]
    for mode in plan.selected:
        lines += _mode_plan(plan, mode, specs_by_mode[mode.name], excluded_by_mode[mode.name])
    return lines


def _fuzz_lines(plan: PlanInput) -> list[str]:
    """``ast fuzz --list``'s plan: fuzz builds are bindings builds, run in our process; each
    mode fuzzes the targets of its own ``fuzz.input``."""
    targets_of = {mode.name: fuzz_targets(plan.root, mode.fuzz) for mode in plan.selected}
    inputs = sorted({pattern for mode in plan.selected for pattern in mode.fuzz.input_patterns})
    every = sorted({target.path for targets in targets_of.values() for target in targets})
    lines = [
        "as-test fuzz plan",
        f"inputs: {', '.join(inputs)}",
        "",
        "Fuzz files:",
        *(f"  - {inert_field(path)}" for path in every),
        *([] if every else ["  (none: nothing to fuzz)"]),
        "",
    ]
    for mode in plan.selected:
        built = fuzz_mode(mode)
        lines += [
            f"Mode: {mode.name}",
            f"  target: {built.target}",
            f"  outDir: {built.out_dir}",
            f"  fuzz runs: {mode.fuzz_runs}",
            "  artifacts:",
            *(f"    - {fuzz_files(built, target)['wasm']}" for target in targets_of[mode.name]),
            "",
        ]
    return lines


def _mode_plan(
    plan: PlanInput,
    mode: ModeSettings,
    specs: Sequence[Spec],
    excluded: Sequence[Exclusion] = (),
) -> list[str]:
    browser = plan.browser or os.environ.get("BROWSER") or mode.browser
    runtime = resolve_runtime(
        mode.runtime_cmd, mode.target, plan.root, f"mode {mode.name}: runtime", browser
    )
    env = mode.run_env  # the config's env and runOptions.env, as 1.8 lists for `test`
    keys = f" ({', '.join(sorted(env))})" if env else ""
    lines = [
        f"Mode: {mode.name}",
        f"  target: {mode.target}",
        f"  outDir: {mode.out_dir}",
        f"  runtime: {runtime.description}",
        *([f"  browser: {browser or '(auto)'}"] if mode.target == "web" else []),
        f"  features: {', '.join(mode.features) or '(none)'}",
        f"  coverage: {'on' if mode.coverage_enabled else 'off'}",
        f"  env overrides: {len(env)}{keys}",
        "  artifacts:",
    ]
    for spec in specs:
        files = spec_files(mode, spec)
        lines.append(f"    - {files.wasm}  ({_last_result(plan.root / files.result)})")
    for exclusion in excluded:
        wasm = spec_files(mode, exclusion.spec).wasm
        lines.append(f'    - {wasm}  (excluded by "{exclusion.pattern}": not built or run)')
    return [*lines, ""]


def _last_result(path: Path) -> str:
    result = read_result(path)
    if result is None:
        return "not run yet"
    word = result.status.value
    if result.status is Status.PASSED:
        return f"last: {word}, cached unless an input changed"
    return f"last: {word}, runs again"


def plan_task(basename: str, text: str, name: str = "plan") -> dict[str, Any]:
    """A task that prints ``text`` (the plan, or with ``name="version"`` the version)."""
    return {
        "basename": basename,
        "name": name,
        "doc": f"print {name} (--list / --list-modes / --version); runs nothing",
        "actions": [(print_plan, [text])],
        "uptodate": [False],
        "verbosity": 2,
    }


def print_plan(text: str) -> None:
    sys.stdout.write(for_stream(text, sys.stdout))
    sys.stdout.flush()
