"""make_astest_tasks: names, pinned options and the errors a dodo.py author can make."""

from __future__ import annotations

import pytest
from doit.exceptions import InvalidDodoFile
from doit.loader import _get_task_creators

from astest_tasks.task_factory import make_astest_tasks


def test_doit_finds_the_creator_under_its_basename_whatever_the_variable() -> None:
    creator = make_astest_tasks(basename="unit")
    found = _get_task_creators({"some_variable": creator}, ())
    assert [(name, ref) for name, ref, _ in found] == [("unit", creator.create_doit_tasks)]
    assert creator.create_doit_tasks._task_creator_params  # doit's @task_params


def test_pinned_values_become_defaults_without_environment_variables() -> None:
    creator = make_astest_tasks(config_path="web.json", modes=["web", "wasi"], specs=["math"])
    options = {option["name"]: option for option in creator.options}
    assert options["config"]["default"] == "web.json" and "env_var" not in options["config"]
    assert options["mode"]["default"] == "web,wasi" and "env_var" not in options["mode"]
    assert options["spec"]["default"] == "math"
    assert options["timeout"]["env_var"] == "ASTEST_TIMEOUT", "unpinned ones keep theirs"
    default = {o["name"]: o for o in make_astest_tasks().options}
    assert default["config"]["env_var"] == "ASTEST_CONFIG"


@pytest.mark.parametrize("basename", ["", "a:b", "has space"])
def test_a_bad_basename_is_refused_with_the_fix(basename: str) -> None:
    with pytest.raises(InvalidDodoFile, match="basename"):
        make_astest_tasks(basename=basename)
