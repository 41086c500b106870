"""plan_listing.py: the `--list` / `--list-modes` plan, as as-test 1.8's listExecutionPlan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astest_tasks.config.feature_switches import FeatureSwitches
from astest_tasks.core.errors import ConfigError, UserError
from astest_tasks.plan.plan_listing import (
    PlanRequest,
    load_plan_input,
    plan_task,
    plan_text,
    print_plan,
)

CONFIG = {
    "input": ["assembly/__tests__/*.spec.ts"],
    "env": {"SHARED": "1"},
    "modes": {
        "wasi": {"buildOptions": {"target": "wasi"}, "runOptions": {"env": {"ONLY_WASI": "1"}}},
        "web": {"buildOptions": {"target": "web"}, "default": False},
    },
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "as-test.config.json").write_text(json.dumps(CONFIG))
    tests = tmp_path / "assembly" / "__tests__"
    tests.mkdir(parents=True)
    for name in ("math", "strings"):
        (tests / f"{name}.spec.ts").write_text('import { test } from "as-test";\n')
    return tmp_path


def _plan(root: Path, request: PlanRequest, modes: list[str], specs: tuple[str, ...] = ()) -> str:
    switches = (FeatureSwitches.parse("simd", ""), None, "")
    plan = load_plan_input(root, "as-test.config.json", modes, specs, switches, "doit astest")
    return plan_text(request, plan)


def test_list_modes_names_the_configured_the_selected_and_the_default_ones(project: Path) -> None:
    text = _plan(project, PlanRequest(modes=True), [])
    assert text == (
        "as-test plan\n"
        "command: doit astest\n"
        f"config: {project / 'as-test.config.json'}\n"
        "selectors: (configured input patterns)\n"
        "\n"
        "Configured modes:\n"
        "  - wasi (default)\n"
        "  - web (manual)\n"
        "\n"
        "Selected modes:\n"
        "  - wasi\n"
        "\n"
        "Default-selected modes:\n"
        "  - wasi\n"
    )
    # A named mode is selected as asked, and the default-selected ones are not repeated.
    named = _plan(project, PlanRequest(modes=True), ["web"])
    assert "Selected modes:\n  - web\n" in named and "Default-selected" not in named


def test_list_shows_files_and_each_modes_target_runtime_env_and_artifacts(project: Path) -> None:
    text = _plan(project, PlanRequest(files=True), ["wasi"], ("math",))
    assert "Configured modes" not in text
    assert "selectors: math\n" in text
    assert "Resolved files:\n  - assembly/__tests__/math.spec.ts\n\n" in text
    assert text.endswith(
        "Mode: wasi\n"
        "  target: wasi\n"
        "  outDir: .as-test/build/wasi\n"
        "  runtime: in-process runner .as-test/runners/default.wasi.py\n"
        "  features: simd\n"
        "  coverage: off\n"
        "  env overrides: 2 (ONLY_WASI, SHARED)\n"
        "  artifacts:\n"
        "    - .as-test/build/wasi/math.spec.wasm  (not run yet)\n"
    )


def test_a_web_mode_names_its_browser(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BROWSER", raising=False)
    text = _plan(project, PlanRequest(files=True), ["web"])
    assert "  target: web\n" in text and "  browser: (auto)\n" in text
    monkeypatch.setenv("BROWSER", "/opt/chromium/chrome")
    assert "  browser: /opt/chromium/chrome\n" in _plan(project, PlanRequest(files=True), ["web"])
    assert "browser:" not in _plan(project, PlanRequest(files=True), ["wasi"])


def test_an_unknown_mode_or_spec_is_the_runs_own_error(project: Path) -> None:
    with pytest.raises(ConfigError, match='unknown mode "wsai"'):
        _plan(project, PlanRequest(files=True), ["wsai"])
    with pytest.raises(UserError, match="--spec nosuch"):
        _plan(project, PlanRequest(files=True), ["wasi"], ("nosuch",))


def test_the_plan_task_prints_the_text_and_is_never_up_to_date(
    capsys: pytest.CaptureFixture[str],
) -> None:
    task = plan_task("unit", "as-test plan\n")
    assert (task["basename"], task["name"], task["uptodate"]) == ("unit", "plan", [False])
    function, args = task["actions"][0]
    assert function is print_plan
    function(*args)
    assert capsys.readouterr().out == "as-test plan\n"


def test_with_fuzz_the_files_plan_adds_the_fuzz_targets(project: Path) -> None:
    fuzz = project / "assembly" / "__fuzz__"
    fuzz.mkdir()
    (fuzz / "parse.fuzz.ts").write_text('import { fuzz } from "as-test";\n')

    text = _plan(project, PlanRequest(files=True, fuzz=True), ["wasi"])

    fuzz_plan = text.split("as-test fuzz plan\n", 1)[1]
    assert "Fuzz files:\n  - assembly/__fuzz__/parse.fuzz.ts\n" in fuzz_plan
    assert "Mode: wasi\n  target: bindings\n" in fuzz_plan
    assert "    - .as-test/build/wasi/fuzz/parse.fuzz.wasm" in fuzz_plan
    assert "fuzz plan" not in _plan(project, PlanRequest(files=True), ["wasi"])
