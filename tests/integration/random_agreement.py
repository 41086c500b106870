"""Generated specs run through our doit and through ``ast test`` of the same as-test, compared
file by file and mode by mode: verdict, suites and tests passed/failed/skipped. The specs come
from tests/tools/spec_generator.py. Used by test_random_agreement.py (a few dozen specs per
toolchain in CI) and by bench/run_random_agreement.py (thousands, in batches)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.integration.as_test_cli import AsTestRun, run_as_test, run_as_test_per_file
from tests.integration.conftest import DODO, Project
from tests.integration.toolchains import Toolchain
from tests.tools.spec_generator import generate_spec

# Mode by mode under 1.8, where one `ast test` covers every mode; 1.0.7 runs each spec alone
# (it blurs one file's counts with the next), so there one mode keeps the CI run short.
MODES_18 = ("wasi", "bindings")
MODES_10 = ("wasi",)


def modes_of(toolchain: Toolchain) -> tuple[str, ...]:
    return MODES_18 if toolchain.is_1_8 else MODES_10


def config_of(toolchain: Toolchain) -> dict[str, object]:
    return {
        "input": ["assembly/__tests__/*.spec.ts"],
        "output": ".as-test/",
        "modes": {mode: {"buildOptions": {"target": mode}} for mode in modes_of(toolchain)},
    }


KINDS = ("suites", "tests")
OUTCOMES = ("passed", "failed", "skipped")


def write_project(root: Path, seed: int, count: int, toolchain: Toolchain) -> list[str]:
    """A project of ``count`` generated specs; their paths."""
    specs = []
    for index in range(count):
        source, _ = generate_spec(seed, index)
        path = f"assembly/__tests__/r{index:04d}.spec.ts"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(source, encoding="utf-8")
        specs.append(path)
    (root / "package.json").write_text('{ "type": "module" }\n')
    (root / "as-test.config.json").write_text(json.dumps(config_of(toolchain), indent=2))
    (root / "dodo.py").write_text(DODO)
    (root / "node_modules").symlink_to(toolchain.node_modules)
    return specs


def disagreements(
    workdir: Path, seed: int, count: int, toolchain: Toolchain
) -> tuple[int, list[str]]:
    """How many specs were compared, and one line per spec on which the two tools differ."""
    root = workdir / f"generated-{toolchain.id}-{seed}"
    shutil.rmtree(root, ignore_errors=True)
    specs = write_project(root, seed, count, toolchain)
    project = Project(root)
    run = project.doit()
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    ours = {(entry["file"], entry["mode"]): entry for entry in project.report()["specs"]}
    scratch = workdir / f"as-test-{toolchain.id}-{seed}"
    scratch.mkdir(parents=True, exist_ok=True)
    pairs = [(spec, mode) for spec in specs for mode in modes_of(toolchain)]
    theirs: dict[tuple[str, str], AsTestRun | None]
    if toolchain.is_1_8:  # one `ast test` writes a log per file and mode
        per_file = run_as_test_per_file(root, specs, toolchain, scratch)
        theirs = {pair: per_file.get(pair) for pair in pairs}
    else:  # 1.0.7 blurs one file's counts with the next: each spec alone
        theirs = {pair: run_as_test(root, *pair, toolchain, scratch) for pair in pairs}
    found = []
    for spec, mode in pairs:
        difference = _difference(ours.get((spec, mode)), theirs[(spec, mode)])
        if difference:
            found.append(f"{spec} [{mode}]: {difference}")
    return len(specs), found


def _difference(ours: dict[str, object] | None, theirs: AsTestRun | None) -> str:
    if ours is None or theirs is None:
        return f"ran by {'as-test only' if ours is None else 'us only'}"
    counts = ours["counts"]
    assert isinstance(counts, dict)
    mine = [str(ours["verdict"])] + [counts[f"{k}_{o}"] for k in KINDS for o in OUTCOMES]
    other: list[object] = [theirs.verdict]
    for kind in KINDS:
        totals = theirs.totals.get(kind)
        other += [getattr(totals, o) if totals else None for o in OUTCOMES]
    if mine == other:
        return ""
    return f"ours {mine}, as-test's {other} (verdict, suites p/f/s, tests p/f/s)"
