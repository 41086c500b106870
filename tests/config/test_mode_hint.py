"""The fix of an unknown mode: JSON that, pasted into the config, declares the mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astest_tasks.config.mode_hint import add_mode_fix
from astest_tasks.config.project_config import load_config, select_modes
from astest_tasks.core.errors import ConfigError


def pasted(fix: str, marker: str) -> dict[str, object]:
    """The JSON members the fix says to paste, as an object."""
    snippet = fix.split(marker, 1)[1]
    data = json.loads("{" + snippet + "}")
    assert isinstance(data, dict)
    return data


def test_with_no_modes_it_declares_the_base_target_too_so_a_plain_run_still_runs_it() -> None:
    fix = add_mode_fix("bindings", "as-test.config.json", [], "wasi")
    assert fix.startswith("choose one of the available modes (default), or ")
    assert pasted(fix, "declare it in as-test.config.json: ") == {
        "modes": {
            "wasi": {"buildOptions": {"target": "wasi"}},
            "bindings": {"buildOptions": {"target": "bindings"}},
        }
    }


def test_with_modes_it_adds_one_entry_whose_target_its_name_gives() -> None:
    fix = add_mode_fix("node:bindings", "conf/as-test.json", ["wasi", "ci"], "wasi")
    assert "(default, wasi, ci)" in fix
    assert pasted(fix, 'add it under "modes" in conf/as-test.json: ') == {
        "node:bindings": {"buildOptions": {"target": "bindings"}}
    }
    other = add_mode_fix("ci", "as-test.config.json", ["wasi"], "bindings")
    assert pasted(other, "as-test.config.json: ") == {
        "ci": {"buildOptions": {"target": "bindings"}}
    }


def test_pasting_the_fix_makes_the_mode_known(tmp_path: Path) -> None:
    config_file = tmp_path / "as-test.config.json"
    config_file.write_text(json.dumps({"buildOptions": {"target": "wasi"}}))
    with pytest.raises(ConfigError) as caught:
        select_modes(load_config(config_file, tmp_path), ["bindings"])
    assert "as-test.config.json" in caught.value.fix
    config_file.write_text(
        json.dumps({"buildOptions": {"target": "wasi"}, **pasted(caught.value.fix, "json: ")})
    )
    config = load_config(config_file, tmp_path)
    assert [mode.target for mode in select_modes(config, ["bindings"])] == ["bindings"]
    assert [mode.name for mode in select_modes(config)] == ["wasi", "bindings"]
