"""The options that answer instead of running: ``--list``, ``--list-modes`` and ``--version``.
Declared here (core/option_declarations.py says how); the factory reads them whole, as
``TaskOptions.listing``, before anything is planned."""

from __future__ import annotations

from astest_tasks.core.frozen import frozen
from astest_tasks.core.option_declarations import OptionDoc, option


@frozen
class ListingOptions:
    """What the call prints instead of running, if anything."""

    list: bool = option(  # doit's name for it; `list` the type is not used below
        False,
        "print the plan instead of running: the spec files, and per selected mode its "
        "target, output folder, runtime, env overrides and artifacts (as-test 1.8's --list)",
        doc=OptionDoc(
            flag="`--list`",
            env="`ASTEST_LIST=1`",
            default="off",
            meaning=(
                "print the plan instead of running (as as-test 1.8's `--list`): the resolved "
                "spec files, and per selected mode its target, output folder, runtime, "
                "features, coverage, env overrides and artifacts, each with its last stored "
                "result (`last: passed, cached unless an input changed`, `last: failed, runs "
                "again`, `not run yet`); with `--fuzz` it adds the fuzz plan as `ast fuzz "
                "--list` prints it (the fuzz files, and per mode the bindings target and the "
                "fuzz builds); the task creator then yields one task, `astest:plan`, and "
                "nothing is built, run or written"
            ),
        ),
    )
    list_modes: bool = option(
        False,
        "print the configured modes and which run by default, instead of running",
        doc=OptionDoc(
            flag="`--list-modes`",
            env="`ASTEST_LIST_MODES=1`",
            default="off",
            meaning=(
                "print the configured modes (`(default)` or `(manual)`), the selected ones "
                "and, on a plain run, the ones a plain run selects; with `--list` both are "
                "printed"
            ),
        ),
    )
    # Not ASTEST_VERSION: a CI that pins the product's version in that variable would print
    # the version instead of testing.
    version: bool = option(
        False,
        "print astest-tasks' version instead of running",
        env_var="ASTEST_PRINT_VERSION",
        doc=OptionDoc(
            flag="`--version`",
            env="`ASTEST_PRINT_VERSION=1`",
            default="off",
            meaning=(
                "print astest-tasks' version (see [Releasing](development.md#releasing)) "
                "instead of running; `astest --version` prints the same"
            ),
        ),
    )
