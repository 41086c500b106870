"""The options of the ``astest`` task creator, declared once as the fields of ``TaskOptions``.

A field is an option: its name is doit's (``timeout = 30`` under ``[tool.doit.tasks.astest]``),
and its declaration holds the rest of what doit needs, from which ``TASK_PARAMS`` is generated:
the long flag (the name with ``-``), a short one, the environment variable (``ASTEST_`` and the
name in capitals, unless it names another), the default as given, the help line, and how
the ``astest`` command completes it when it is given bare. So one field drives the command line
(``doit astest --timeout 30``), the environment (``ASTEST_TIMEOUT=30 doit``), doit's config files,
``doit help astest``, the ``astest`` command and the generated dodo.py.

``TaskOptions.from_values`` reads doit's values once, and the record goes whole to the creator:
- an option read on its own is parsed into its field (``mode`` into names, ``spec`` into
  selectors, ``update_snapshots`` into a ``SnapshotUpdate``, ``coverage`` into on/off/None,
  ``shard`` into a ``Shard``);
- options read together keep their text, and their joint reading is an attribute made when the
  record is (``features`` from ``enable`` and ``disable``, ``switches``, ``run_coverage``);
- options read against the config keep their text until it is loaded: the limits take
  per-mode entries (``10,web=30``), and the config's fuzz block completes the seed and runs.
A bad value stops the record with the option's one-line error and its fix.

A task creator made with pinned values (``make_astest_tasks(modes=...)``) takes them as its
defaults, and those options lose their environment variable: one ``ASTEST_CONFIG`` must not
retarget every instance in a dodo.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from astest_tasks.config.coverage_switch import parse_coverage_switch
from astest_tasks.config.feature_switches import FeatureSwitches, combined_coverage
from astest_tasks.config.git_changes import DEFAULT_REF
from astest_tasks.config.project_config import split_mode_names
from astest_tasks.config.run_switches import RunSwitches, ShowCoverage
from astest_tasks.config.selection import split_selectors
from astest_tasks.config.shards import Shard
from astest_tasks.core.errors import UserError
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.output.coverage_threshold import CoverageThreshold
from astest_tasks.output.durations import parse_durations
from astest_tasks.output.test_name_filter import compile_test_name_pattern
from astest_tasks.remote.settings import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_REQUEST_TIMEOUT,
    RemoteMode,
    parse_settings,
)
from astest_tasks.run.limits import MEMORY_LIMIT, OUTPUT_LIMIT, TIMEOUT

DEFAULT_CONFIG = "as-test.config.json"
_DECLARATION = "astest_option"  # the key of a field's metadata that makes it an option


@dataclass(frozen=True)
class OptionDoc:
    """The option's row in docs/tasks-and-options.md, which ``options_docs.py`` renders from
    these declarations (a test holds the page to it): the flag as the user types it, the
    environment variable, the default in words, and what it does."""

    flag: str
    env: str
    default: str
    meaning: str


@dataclass(frozen=True)
class _Declared:
    """What a field declares of its option; the rest follows from the field's name."""

    default: str | bool  # as given, so what `doit help` shows
    help: str
    short: str
    env_var: str  # "" for ASTEST_<NAME>
    parse: Callable[[Any], Any] | None  # from the given str; None keeps it as given
    # The astest command's value for the option given bare (`astest --changed`), as doit's
    # getopt has no optional values; and the words that, right after it, are its value.
    bare: str
    bare_followers: tuple[str, ...]
    doc: OptionDoc


def _option(
    default: str | bool,
    help: str,
    *,
    doc: OptionDoc,
    short: str = "",
    env_var: str = "",
    parse: Callable[[str], Any] | None = None,
    bare: str = "",
    bare_followers: tuple[str, ...] = (),
) -> Any:  # the field's default, as dataclasses.field returns it
    declared = _Declared(default, help, short, env_var, parse, bare, bare_followers, doc)
    return field(
        default=parse(str(default)) if parse else default, metadata={_DECLARATION: declared}
    )


def _mode_names(text: str) -> tuple[str, ...]:
    return tuple(split_mode_names([text]))


def _names(text: str) -> tuple[str, ...]:
    return tuple(split_selectors(text))


def _checked_test_name_pattern(text: str) -> str:
    compile_test_name_pattern(text)  # a bad expression stops here, with its fix
    return text


def _strip(text: str) -> str:
    return text.strip()


def _remote_cache_url(text: str) -> str:
    url = text.strip()
    if url:
        parse_settings(url, source="--remote-cache")  # a bad URL stops here, never printed whole
    return url


def _remote_cache_mode(text: str) -> RemoteMode:
    return RemoteMode.parse(text.strip() or RemoteMode.READ_WRITE.value, "--remote-cache-mode")


def _seconds(option: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            seconds = float(text)
        except ValueError:
            seconds = -1.0
        if not seconds > 0:
            raise UserError(f"--{option}: {text!r} is not a number of seconds > 0; fix: e.g. 5")
        return seconds

    return parse


@dataclass(frozen=True)
class TaskOptions:
    """One call's options, each read once; the order of the fields is ``doit help``'s."""

    mode: tuple[str, ...] = _option(
        "",
        "comma-separated modes to run (default: the config's default modes)",
        short="m",
        parse=_mode_names,
        doc=OptionDoc(
            flag="`--mode a,b` (`-m`)",
            env="`ASTEST_MODE`",
            default="the config's default modes",
            meaning="which modes to build and run",
        ),
    )
    # The limits take `mode=N` entries, so they are read once the config's modes are known.
    timeout: str = _option(
        f"{TIMEOUT.default:g}",
        "wall-clock seconds a spec may run before it is stopped and failed; `mode=S` entries "
        "set one mode's, e.g. `--timeout=10,web=30` [default: %(default)s]",
        env_var=TIMEOUT.env_var,
        doc=OptionDoc(
            flag="`--timeout S`",
            env="`ASTEST_TIMEOUT`",
            default="`300`",
            meaning="wall-clock seconds a spec may run before it is stopped and failed",
        ),
    )
    memory_limit: str = _option(
        f"{MEMORY_LIMIT.default:g}",
        "MiB of memory a spec's wasm may grow to (wasi and bindings); `mode=MIB` entries set "
        "one mode's [default: %(default)s]",
        env_var=MEMORY_LIMIT.env_var,
        doc=OptionDoc(
            flag="`--memory-limit MIB`",
            env="`ASTEST_MEMORY_LIMIT`",
            default="`1024`",
            meaning="memory a spec's wasm may grow to, in wasmtime (wasi and bindings)",
        ),
    )
    output_limit: str = _option(
        f"{OUTPUT_LIMIT.default:g}",
        "MiB a spec may write to stdout, frames included, before it is stopped and failed; "
        "`mode=MIB` entries set one mode's [default: %(default)s]",
        env_var=OUTPUT_LIMIT.env_var,
        doc=OptionDoc(
            flag="`--output-limit MIB`",
            env="`ASTEST_OUTPUT_LIMIT`",
            default="`64`",
            meaning="what a spec may write to stdout, frames included, before it is stopped",
        ),
    )
    spec: tuple[str, ...] = _option(
        "",
        "comma-separated spec names (or parts of them) or globs to run, e.g. `math,nested/*` "
        "(default: every spec of the selected modes)",
        parse=_names,
        doc=OptionDoc(
            flag="`--spec a,b`",
            env="`ASTEST_SPEC`",
            default="every spec",
            meaning=(
                "spec files to run: parts of their names (`math`, `nested/`), their paths "
                "(`assembly/__tests__/math.spec.ts`, also with `./`) or globs "
                "(`'assembly/__tests__/m*'`)"
            ),
        ),
    )
    suite: tuple[str, ...] = _option(
        "",
        "comma-separated suites to report, as as-test's --suite: a path of slugified "
        "descriptions (`parent/child`) or a bare leaf name; specs still run whole",
        parse=_names,
        doc=OptionDoc(
            flag="`--suite a,b/c`",
            env="`ASTEST_SUITE`",
            default="every suite",
            meaning=(
                "suites to report, as as-test's `--suite`: a path of slugified descriptions "
                "(`array-check`, `parent/child`) or a bare last part; the specs still run "
                "whole (and stay cached), a selected suite is shown with everything inside it"
            ),
        ),
    )
    test_name_pattern: str = _option(
        "",
        "report only the tests whose full name (`describe > test`) matches this regular "
        "expression, as jest's -t; the others count as skipped, and specs still run whole",
        short="t",
        parse=_checked_test_name_pattern,
        doc=OptionDoc(
            flag="`--test-name-pattern=REGEX` (`-t`)",
            env="`ASTEST_TEST_NAME_PATTERN`",
            default="every test",
            meaning=(
                "report only the tests whose full name (`describe > test`, as failures are "
                "titled) matches the regular expression, as jest's `-t`; the others count as "
                "skipped (as an `xtest` would, by the installed as-test's counting) and the "
                "verdict follows the rest. as-test has no way to skip a test from outside the "
                "guest, so the spec still runs whole (a crash still fails it) and stays "
                "cached whole: changing the pattern re-runs nothing, and the next run without "
                "it shows every test again"
            ),
        ),
    )
    changed: str = _option(
        "",
        "run only the specs that differ from git REF, themselves or a file they depend on "
        "(imports, snapshots, runner, config), untracked files included, e.g. "
        "`--changed=origin/main`; the astest command takes a bare `--changed` as HEAD",
        parse=_strip,
        bare=DEFAULT_REF,
        doc=OptionDoc(
            flag="`--changed=REF`",
            env="`ASTEST_CHANGED`",
            default="every spec",
            meaning=(
                "run only the specs that differ from git `REF`, or depend on a file that does "
                "(see [Changed specs](pipelines-and-ci.md#changed-specs-pull-requests)); the "
                "`astest` command also takes a bare `--changed`, which means `HEAD`"
            ),
        ),
    )
    last_failed: bool = _option(
        False,
        "run only the specs whose last result failed, crashed or did not build, in each "
        "mode, as pytest's --last-failed; when none did, run them all and say so",
        doc=OptionDoc(
            flag="`--last-failed`",
            env="`ASTEST_LAST_FAILED=1`",
            default="every spec",
            meaning=(
                "run only the specs whose last result, in that mode, failed, crashed or did "
                "not build, as pytest's `--last-failed`; when none did (or none ran yet), run "
                "every spec and say so in one line. Narrows `--mode`, `--spec`, `--changed` and "
                "the shard further (see [Only the specs that "
                "failed](#only-the-specs-that-failed-last-failed))"
            ),
        ),
    )
    update_snapshots: SnapshotUpdate = _option(  # noqa: RUF009 (a dataclasses.field)
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
    create_snapshots: bool = _option(
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
    overwrite_snapshots: bool = _option(
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
    no_snapshot: bool = _option(
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
    show_coverage: str = _option(  # read with no_snapshot and browser: `switches`
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
    browser: str = _option(
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
    headful: bool = _option(
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
    fuzz: bool = _option(
        False,
        "run the fuzz targets too (`doit astest:fuzz` runs only them); `fuzz = true` under "
        "[tool.doit.tasks.astest] in pyproject.toml makes it the project's default",
        doc=OptionDoc(
            flag="`--fuzz`",
            env="`ASTEST_FUZZ=1`",
            default="off",
            meaning="run the fuzz targets in a plain run too (see [Fuzzing](fuzzing.md))",
        ),
    )
    # The seed and the runs are read with the config's fuzz block, which completes them.
    fuzz_seed: str = _option(
        "",
        "pin the fuzz seed to replay a campaign (default: the config's fuzz.seed, else a "
        "random seed per doit call, which is never cached)",
        doc=OptionDoc(
            flag="`--fuzz-seed N`",
            env="`ASTEST_FUZZ_SEED`",
            default="the config's `fuzz.seed`, else random",
            meaning="pin the fuzz seed, to replay a campaign",
        ),
    )
    fuzz_runs: str = _option(
        "",
        "override each fuzzer's run count: 500 sets, 1.5x scales, +100000 or +10%% adds",
        doc=OptionDoc(
            flag="`--fuzz-runs R`",
            env="`ASTEST_FUZZ_RUNS`",
            default="each fuzzer's own",
            meaning="`500` sets every fuzzer's runs, `1.5x` scales, `+100000` or `+10%` adds",
        ),
    )
    fuzzer: tuple[str, ...] = _option(
        "",
        "comma-separated fuzzers to report, as as-test's `ast fuzz --fuzzer`: names compared "
        "slugified; every fuzzer of a file still runs, and a name no fuzzer has fails its file",
        parse=_names,
        doc=OptionDoc(
            flag="`--fuzzer a,b`",
            env="`ASTEST_FUZZER`",
            default="every fuzzer",
            meaning=(
                "report only these fuzzers of each fuzz file, as `ast fuzz --fuzzer` (names "
                "compared slugified); every fuzzer still runs, and a name no fuzzer of a file "
                "has fails that file (see [Fuzzing](fuzzing.md))"
            ),
        ),
    )
    coverage: bool | None = _option(  # with enable/disable and show_coverage: `run_coverage`
        "",
        "`on` or `off` to build and run with or without coverage this time, over the "
        'config\'s "coverage" (default: the config decides)',
        parse=parse_coverage_switch,
        doc=OptionDoc(
            flag="`--coverage on`",
            env="`ASTEST_COVERAGE=on`",
            default="the config's `coverage`",
            meaning=(
                "build and run with (`on`) or without (`off`) coverage this time (see "
                "[Coverage](coverage.md))"
            ),
        ),
    )
    enable: str = _option(  # read with disable: `features`
        "",
        'comma-separated features to turn on this time, over the config\'s "features", as '
        "as-test 1.8's --enable: `coverage`, `try-as` or an asc feature (`simd`, ...)",
        short="e",
        doc=OptionDoc(
            flag="`--enable a,b` (`-e`)",
            env="`ASTEST_ENABLE`",
            default="the config's `features`",
            meaning=(
                "features to turn on this time, as as-test 1.8's `--enable`: `coverage` (as "
                "`--coverage on`), `try-as`, or an asc feature (`simd`, `threads`, …: `asc "
                "--enable NAME`); part of the build key, so switching rebuilds, and the next "
                "run without it rebuilds again. Features came with as-test 1.3.0: under an "
                "older one only `coverage` is accepted"
            ),
        ),
    )
    disable: str = _option(
        "",
        'comma-separated features to turn off this time, over the config\'s "features" '
        "(`coverage`, `try-as` or an asc feature)",
        doc=OptionDoc(
            flag="`--disable a,b`",
            env="`ASTEST_DISABLE`",
            default="the config's `features`",
            meaning=(
                "features to turn off this time (`coverage`, `try-as` or an asc feature); a "
                "name in both lists is an error"
            ),
        ),
    )
    coverage_fail_under: CoverageThreshold = _option(  # noqa: RUF009 (a dataclasses.field)
        "",
        "fail the run when the total coverage (every covered mode merged, as the summary "
        "prints it) is below PCT, as coverage.py's fail_under; `mode=PCT` entries add one "
        "mode's own floor, e.g. `--coverage-fail-under=80,web=60`",
        parse=CoverageThreshold.parse,
        doc=OptionDoc(
            flag="`--coverage-fail-under=PCT`",
            env="`ASTEST_COVERAGE_FAIL_UNDER`",
            default="no floor",
            meaning=(
                "fail the run when the total coverage (every covered mode's points merged: "
                "the percentage the summary prints) is below `PCT`, as coverage.py's "
                "`fail_under` is a floor for its report's total; `mode=PCT` entries add a "
                "floor for one mode's own points (`80,web=60`, or `wasi=90` alone). Compared "
                "at the summary's two decimals, 100 exactly; the failing line names the files "
                "furthest below (see [Coverage](coverage.md#a-coverage-floor)). An entry for "
                "a mode without coverage this run, or no coverage at all, stops the run with "
                "the fix"
            ),
        ),
    )
    shard: Shard | None = _option(  # noqa: RUF009 (a dataclasses.field)
        "",
        "run one part of the suite, k of N (e.g. `--shard=2/4`), for a CI job matrix; each "
        "shard writes its own reports, and `astest merge` combines them",
        parse=Shard.parse,
        doc=OptionDoc(
            flag="`--shard=k/N`",
            env="`ASTEST_SHARD`",
            default="the whole suite",
            meaning="run one CI shard (see [CI shards](pipelines-and-ci.md#ci-shards))",
        ),
    )
    shard_durations: str = _option(
        "",
        "a report.json of an earlier run (the same file on every shard): balance the "
        "shards by its recorded durations instead of by those the last `astest merge` "
        "published to the remote cache, or by hash",
        doc=OptionDoc(
            flag="`--shard-durations=FILE`",
            env="`ASTEST_SHARD_DURATIONS`",
            default="with `--remote-cache`, what the last merge published; else hash only",
            meaning="balance the shards by an earlier report's durations",
        ),
    )
    list: bool = _option(  # doit's name for it; `list` the type is not used below
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
    list_modes: bool = _option(
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
    verbose: bool = _option(
        False,
        "list every suite and test (with its log() lines) under its spec's line in the "
        "summary, as as-test 1.8's --verbose",
        doc=OptionDoc(
            flag="`--verbose`",
            env="`ASTEST_VERBOSE=1`",
            default="off",
            meaning=(
                "list every suite and test of each spec, indented under its line in the "
                "summary, with its verdict and its `log()` lines, as as-test 1.8's "
                "`--verbose`"
            ),
        ),
    )
    show_logs: bool = _option(
        False,
        "print every log() line of the run's specs before the summary, grouped by spec, as "
        "as-test 1.8's --show-logs (they are always in the logs folder's latest.log)",
        doc=OptionDoc(
            flag="`--show-logs`",
            env="`ASTEST_SHOW_LOGS=1`",
            default="off",
            meaning=(
                "print every `log()` line of the run's specs before the summary, one block "
                "per spec with the modes that logged the same lines, as as-test 1.8's "
                "`--show-logs`; the same text is always in `latest.log` in the logs folder "
                "(`.as-test/logs/latest.log`), rewritten when a result changed and removed "
                "when no spec logged anything"
            ),
        ),
    )
    durations: int | None = _option(
        "",
        "after the summary, list the N slowest specs and the N slowest tests (0: all), as "
        "pytest's --durations",
        parse=parse_durations,
        doc=OptionDoc(
            flag="`--durations=N`",
            env="`ASTEST_DURATIONS`",
            default="off",
            meaning=(
                "after the failures and coverage, list the `N` slowest specs (their run "
                "times, cached ones included) and the `N` slowest tests (each `test`/`it` "
                "block's time as the spec reported it), as pytest's `--durations` (`slowest N "
                "durations`; `0` lists all); before the totals, so the tests line stays last. "
                "Coloured on a terminal, plain in a pipe"
            ),
        ),
    )
    # Not ASTEST_VERSION: a CI that pins the product's version in that variable would print
    # the version instead of testing.
    version: bool = _option(
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
    config: str = _option(
        DEFAULT_CONFIG,
        "path of the as-test config file [default: %(default)s]",
        short="c",
        doc=OptionDoc(
            flag="`--config PATH` (`-c`)",
            env="`ASTEST_CONFIG`",
            default="`as-test.config.json`",
            meaning="the as-test config file",
        ),
    )

    # Not as-test.config.json keys: as-test 1.8 refuses unknown keys there, and where the cache
    # is (and who may write to it) is the machine's business, not the project's.
    remote_cache: str = _option(
        "",
        "URL of a cache shared across machines (Bazel's HTTP remote-cache protocol: nginx "
        "WebDAV, bazel-remote), e.g. `https://cache.example/astest`; builds and passing runs "
        "found there are not done again (docs: Sharing a cache across machines)",
        parse=_remote_cache_url,
        doc=OptionDoc(
            flag="`--remote-cache=URL`",
            env="`ASTEST_REMOTE_CACHE`",
            default="none",
            meaning=(
                "a cache shared across machines, spoken to with Bazel's HTTP remote-cache "
                "protocol (nginx WebDAV, bazel-remote): builds and passing runs found there "
                "are not done again, and this run's are uploaded (see [Sharing a cache across "
                "machines](remote-cache.md)). A user and password in the URL are sent as HTTP "
                "Basic; `ASTEST_REMOTE_CACHE_HEADER` (`Name: value`) adds a header such as a "
                "bearer token, and `ASTEST_REMOTE_CACHE_SIGNING_KEY` signs and checks the "
                "entries; without a signing key, entries are trusted by design, as Bazel "
                "trusts its cache: whoever can write to it can hand every machine a passing "
                "result. A query in the URL (`?token=...`) is sent with every request. No "
                "secret is ever printed or stored; nothing of it goes into "
                "`as-test.config.json`"
            ),
        ),
    )
    remote_cache_mode: RemoteMode = _option(  # noqa: RUF009 (a dataclasses.field)
        RemoteMode.READ_WRITE.value,
        "`read-write` looks up and uploads; `read` only looks up (a pull request's CI) "
        "[default: %(default)s]",
        parse=_remote_cache_mode,
        doc=OptionDoc(
            flag="`--remote-cache-mode=read`",
            env="`ASTEST_REMOTE_CACHE_MODE`",
            default="`read-write`",
            meaning=(
                "`read` only looks up, for a pull request's CI; `read-write` also uploads (as "
                "in Bazel)"
            ),
        ),
    )
    remote_cache_connect_timeout: float = _option(
        f"{DEFAULT_CONNECT_TIMEOUT:g}",
        "seconds to wait for a connection to the remote cache before running without it "
        "[default: %(default)s]",
        parse=_seconds("remote-cache-connect-timeout"),
        doc=OptionDoc(
            flag="`--remote-cache-connect-timeout=S`",
            env="`ASTEST_REMOTE_CACHE_CONNECT_TIMEOUT`",
            default="`2`",
            meaning=(
                "seconds to wait for a connection to the remote cache; a server that is "
                "slower, down or answers garbage costs one warning, and the run goes on "
                "without it"
            ),
        ),
    )
    remote_cache_request_timeout: float = _option(
        f"{DEFAULT_REQUEST_TIMEOUT:g}",
        "seconds one request to the remote cache may take before running without it "
        "[default: %(default)s]",
        parse=_seconds("remote-cache-request-timeout"),
        doc=OptionDoc(
            flag="`--remote-cache-request-timeout=S`",
            env="`ASTEST_REMOTE_CACHE_REQUEST_TIMEOUT`",
            default="`10`",
            meaning="seconds one request to the remote cache may take, the same way",
        ),
    )

    # Joint readings of several options, made once with the record (no options themselves).
    features: FeatureSwitches = field(init=False, repr=False, compare=False)
    switches: RunSwitches = field(init=False, repr=False, compare=False)
    run_coverage: bool | None = field(init=False, repr=False, compare=False)  # None: the config

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
        features = FeatureSwitches.parse(self.enable, self.disable)
        switches = RunSwitches.parse(
            self.no_snapshot, self.show_coverage, self.browser, self.update_snapshots
        )
        run_coverage = combined_coverage(
            self.coverage, features, show_coverage=switches.show_coverage is not ShowCoverage.NONE
        )
        if self.shard_durations and self.shard is None:
            raise UserError("--shard-durations needs --shard; fix: add --shard=k/N")
        object.__setattr__(self, "features", features)  # frozen: set once, here
        object.__setattr__(self, "switches", switches)
        object.__setattr__(self, "run_coverage", run_coverage)

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> TaskOptions:
        """The record of doit's option values by name (one not given takes its declared
        default), each parsed once; a bad value raises its one-line ``UserError``."""
        unknown = sorted(set(values) - OPTION_NAMES)
        if unknown:
            raise TypeError(f"not options of the astest tasks: {', '.join(unknown)}")
        given = {spec.name: spec.read(values[spec.name]) for spec in OPTIONS if spec.name in values}
        return cls(**given)


@dataclass(frozen=True)
class OptionSpec:
    """One option as doit declares it, generated from a ``TaskOptions`` field."""

    name: str
    long: str
    short: str  # "" for none
    given_type: type[str] | type[bool]  # what doit parses the command line, env, config into
    default: str | bool  # as given
    env_var: str  # "" when the value is pinned
    help: str
    parse: Callable[[Any], Any] | None
    bare: str  # "" when it always takes its value
    bare_followers: tuple[str, ...]
    doc: OptionDoc

    @property
    def takes_value(self) -> bool:
        return self.given_type is not bool

    def read(self, value: Any) -> Any:
        """The field's value from doit's: a config file may give ``timeout = 30``."""
        given = self.given_type(value)
        return self.parse(given) if self.parse else given

    def pinned(self, value: str) -> OptionSpec:
        return replace(self, default=value, env_var="")

    def param(self) -> dict[str, Any]:
        """doit's option dict (``doit.task_params``, and the astest command's options)."""
        param: dict[str, Any] = {"name": self.name, "long": self.long}
        if self.short:
            param["short"] = self.short
        param.update(type=self.given_type, default=self.default)
        if self.env_var:
            param["env_var"] = self.env_var
        param["help"] = self.help
        return param


def _declared_options() -> tuple[OptionSpec, ...]:
    options = []
    for declared_field in fields(TaskOptions):
        declared = declared_field.metadata.get(_DECLARATION)
        if not isinstance(declared, _Declared):
            continue  # a joint reading, not an option
        name = declared_field.name
        options.append(
            OptionSpec(
                name=name,
                long=name.replace("_", "-"),
                short=declared.short,
                given_type=bool if isinstance(declared.default, bool) else str,
                default=declared.default,
                env_var=declared.env_var or f"ASTEST_{name.upper()}",
                help=declared.help,
                parse=declared.parse,
                bare=declared.bare,
                bare_followers=declared.bare_followers,
                doc=declared.doc,
            )
        )
    return tuple(options)


OPTIONS = _declared_options()
OPTION_NAMES = frozenset(option.name for option in OPTIONS)
TASK_PARAMS: list[dict[str, Any]] = [option.param() for option in OPTIONS]
# Options the astest command also takes bare, with this value (`astest --changed`): doit parses
# options with getopt, which has no optional values, so the command line is completed first.
BARE_VALUES = {option.long: option.bare for option in OPTIONS if option.bare}
# The words that, right after such a bare option, are its value rather than a word of their own.
BARE_FOLLOWERS = {option.long: option.bare_followers for option in OPTIONS if option.bare_followers}


def option_specs(pinned: Mapping[str, str] | None = None) -> tuple[OptionSpec, ...]:
    """The options, with ``pinned`` values (by option name) as fixed defaults."""
    pinned = pinned or {}
    return tuple(
        option.pinned(pinned[option.name]) if option.name in pinned else option
        for option in OPTIONS
    )


def task_options(pinned: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """doit's option dicts, with ``pinned`` values (by option name) as fixed defaults."""
    return [option.param() for option in option_specs(pinned)]


def option_defaults(options: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {option["name"]: option["default"] for option in options}


def read_option(values: Mapping[str, Any], name: str) -> Any:
    """One option's field value alone, for what must be known before the whole record may
    fail (the doctor task names the problem of a bad option instead of stopping on it)."""
    option = next(option for option in OPTIONS if option.name == name)
    return option.read(values[name]) if name in values else option.read(option.default)
