"""The options that change how specs run this time: snapshot updates, ``--no-snapshot``,
``--show-coverage``, the browser. Declared here (core/option_declarations.py says how); read
together into ``RunSwitches`` (run_switches.py) when the record is made, which planning hands
to every run as ``TaskOptions.run_switches.switches``."""

from __future__ import annotations

from dataclasses import field

from astest_tasks.config.run_switches import RunSwitches
from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.option_declarations import OptionDoc, option
from astest_tasks.model.snapshot_update import SnapshotUpdate


@frozen
class RunSwitchOptions:
    """This run's snapshot, coverage-listing and browser switches, as given."""

    update_snapshots: SnapshotUpdate = option(
        "",
        "write snapshots while running: `create` stores missing ones, `overwrite` also "
        "replaces mismatching ones, `replace` only replaces mismatching ones",
        parse=SnapshotUpdate.parse,
        doc=OptionDoc(
            flag="`--update-snapshots=create`",
            env="`ASTEST_UPDATE_SNAPSHOTS`",
            default="(none)",
            meaning=(
                "write missing snapshots (`create`), also replace mismatching ones "
                "(`overwrite`), or only replace mismatching ones (`replace`)"
            ),
        ),
    )
    # as-test's own spellings of update_snapshots, two independent switches as in as-test.
    create_snapshots: bool = option(
        False,
        "as-test's --create-snapshots: store missing snapshots (`--update-snapshots=create`)",
        doc=OptionDoc(
            flag="`--create-snapshots`",
            env="`ASTEST_CREATE_SNAPSHOTS=1`",
            default="off",
            meaning=(
                "as-test's spelling of `--update-snapshots=create`: store missing snapshots, "
                "while a mismatching one still fails (as-test 1.0.7 and 1.8 alike)"
            ),
        ),
    )
    overwrite_snapshots: bool = option(
        False,
        "as-test's --overwrite-snapshots: replace mismatching snapshots; with "
        "--create-snapshots also store missing ones (`--update-snapshots=overwrite`)",
        doc=OptionDoc(
            flag="`--overwrite-snapshots`",
            env="`ASTEST_OVERWRITE_SNAPSHOTS=1`",
            default="off",
            meaning=(
                "as-test's spelling: replace mismatching snapshots, while a missing one still "
                "fails (`replace`); with `--create-snapshots` both (`overwrite`), as in "
                "as-test, where the two are independent switches"
            ),
        ),
    )
    no_snapshot: bool = option(
        False,
        "skip snapshot assertions this run, as as-test 1.8's --no-snapshot: each passes "
        "unchecked, and the next run without it runs those specs again",
        doc=OptionDoc(
            flag="`--no-snapshot`",
            env="`ASTEST_NO_SNAPSHOT=1`",
            default="snapshots checked",
            meaning=(
                "skip snapshot assertions this run, as as-test 1.8's `--no-snapshot`: each "
                "passes unchecked, is not counted and nothing is written; such a pass is not "
                "cached as a plain one, so the next run without it runs those specs again. "
                "Not with `--update-snapshots`"
            ),
        ),
    )
    show_coverage: str = option(
        "",
        "list the uncovered points under the coverage summary: `on` folds the points inside "
        "an uncovered function into it (as-test 1.8), `all` lists each (turns coverage on "
        "unless it is switched off)",
        bare="on",
        bare_followers=("all",),  # `astest --show-coverage all`, as as-test reads it
        doc=OptionDoc(
            flag="`--show-coverage=on`",
            env="`ASTEST_SHOW_COVERAGE=on`",
            default="not listed",
            meaning=(
                "list the uncovered points under the coverage summary (`Coverage Gaps`: "
                "label, `file:line:col`, source line), as as-test 1.8's `--show-coverage`: "
                "with as-test 1.8 the points inside an uncovered function fold into a `(+N "
                "nested uncovered points)` line, and `all` lists them beneath it (see [the "
                "differences](differences.md#differences-from-as-tests-own-cli)); turns "
                "coverage on unless it is switched off. The `astest` command also takes the "
                "bare `--show-coverage` and `--show-coverage all`"
            ),
        ),
    )
    browser: str = option(
        "",
        "the browser of web modes this run: chromium, chrome or an executable path, over "
        "BROWSER and runOptions.runtime.browser",
        doc=OptionDoc(
            flag="`--browser NAME\\|PATH`",
            env="`ASTEST_BROWSER`",
            default="`BROWSER`, then `runOptions.runtime.browser`",
            meaning=(
                "the browser of web modes this run (as as-test 1.8's `--browser`); part of "
                "the run key"
            ),
        ),
    )
    headful: bool = option(
        False,
        "show the browser window while web specs run (headless by default; without a "
        "display they run headless and say so)",
        doc=OptionDoc(
            flag="`--headful`",
            env="`ASTEST_HEADFUL=1`",
            default="headless",
            meaning="show the browser window while web specs run (see [The web target](web.md))",
        ),
    )

    # Their joint reading, made once with the record (no option itself).
    switches: RunSwitches = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        aliased = SnapshotUpdate.from_switches(self.create_snapshots, self.overwrite_snapshots)
        if aliased is not SnapshotUpdate.NONE:
            if self.update_snapshots not in (SnapshotUpdate.NONE, aliased):
                raise UserError(
                    f"--update-snapshots={self.update_snapshots.value} with as-test's "
                    "--create-snapshots/--overwrite-snapshots ask for different updates; fix: "
                    "give one of the two spellings"
                )
            object.__setattr__(self, "update_snapshots", aliased)  # one value from here on
        switches = RunSwitches.parse(
            self.no_snapshot, self.show_coverage, self.browser, self.update_snapshots
        )
        object.__setattr__(self, "switches", switches)  # frozen: set once, here
