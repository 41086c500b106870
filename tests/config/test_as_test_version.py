from __future__ import annotations

import json
from pathlib import Path

from astest_tasks.config.as_test_version import (
    AsTestVersion,
    installed_version,
    untested_version_warning,
)


def test_versions_compare_numerically_not_as_text() -> None:
    assert AsTestVersion.parse("1.10.0") > AsTestVersion.parse("1.8.0")
    assert AsTestVersion.parse("1.0.7") < AsTestVersion.parse("1.0.16")
    assert AsTestVersion.parse("1.8.0-beta.1").parts == (1, 8, 0)
    assert AsTestVersion.parse("2").parts == (2, 0, 0)


def test_at_least_marks_the_release_a_rule_arrived_in() -> None:
    assert AsTestVersion.parse("1.8.0").at_least("1.3.0")
    assert not AsTestVersion.parse("1.0.7").at_least("1.3.0")
    assert AsTestVersion.parse("1.3.0").at_least("1.3.0")


def test_only_versions_outside_the_tested_range_warn_and_the_warning_names_the_range() -> None:
    assert untested_version_warning(AsTestVersion.parse("1.0.7")) is None
    assert untested_version_warning(AsTestVersion.parse("1.4.1")) is None
    assert untested_version_warning(AsTestVersion.parse("1.8.0")) is None
    older = untested_version_warning(AsTestVersion.parse("0.9.3"))
    newer = untested_version_warning(AsTestVersion.parse("1.9.0"))
    assert older is not None and "older" in older and "1.0.7 to 1.8.0" in older
    assert newer is not None and "newer" in newer and "fix:" in newer


def test_the_installed_version_is_read_the_way_node_resolves_the_package(tmp_path: Path) -> None:
    package = tmp_path / "node_modules" / "as-test"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "as-test", "version": "1.8.0"}))
    nested = tmp_path / "packages" / "lib"
    nested.mkdir(parents=True)
    found = installed_version(nested)
    assert found is not None and found.parts == (1, 8, 0)
    assert installed_version(tmp_path / "elsewhere") is not None  # parents are searched
    assert installed_version(Path("/")) is None
