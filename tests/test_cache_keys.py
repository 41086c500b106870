"""Cache-key inputs that are computed from files: the asconfig ``extends`` chain."""

from __future__ import annotations

import json
from pathlib import Path

from astest_tasks.cache_keys import asconfig_chain


def test_asconfig_chain_follows_extends_transitively(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "base.json").write_text(json.dumps({"options": {}}))
    (tmp_path / "configs" / "mid.json").write_text(json.dumps({"extends": "./base.json"}))
    (tmp_path / "asconfig.json").write_text(json.dumps({"extends": "configs/mid.json"}))
    chain = asconfig_chain(tmp_path, "asconfig.json")
    assert chain == [
        str(tmp_path / "asconfig.json"),
        str(tmp_path / "configs" / "mid.json"),
        str(tmp_path / "configs" / "base.json"),
    ]


def test_asconfig_chain_stops_at_cycles_missing_files_and_bad_json(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps({"extends": "./b.json"}))
    (tmp_path / "b.json").write_text(json.dumps({"extends": "./a.json"}))
    assert asconfig_chain(tmp_path, "a.json") == [
        str(tmp_path / "a.json"),
        str(tmp_path / "b.json"),
    ]
    assert asconfig_chain(tmp_path, "missing.json") == []
    (tmp_path / "bad.json").write_text("{")
    assert asconfig_chain(tmp_path, "bad.json") == [str(tmp_path / "bad.json")]
