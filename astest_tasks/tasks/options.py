"""The options of the ``astest`` task creator: one definition for every way to give them.

Each drives the command line (``doit astest --timeout 30``), the environment
(``ASTEST_TIMEOUT=30 doit``), doit's config files (``[tool.doit.tasks.astest]``) and
``doit help astest``. A task creator made with pinned values (``make_astest_tasks(modes=...)``)
takes them as its defaults, and those options lose their environment variable: one
``ASTEST_CONFIG`` must not retarget every instance in a dodo.py.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from astest_tasks.config.git_changes import DEFAULT_REF
from astest_tasks.run.limits import MEMORY_LIMIT, OUTPUT_LIMIT, TIMEOUT

DEFAULT_CONFIG = "as-test.config.json"
# Options the astest command also takes bare, with this value (`astest --changed`): doit parses
# options with getopt, which has no optional values, so the command line is completed first.
BARE_VALUES = {"changed": DEFAULT_REF, "show-coverage": "on"}
# The words that, right after such a bare option, are its value rather than a word of their own
# (`astest --show-coverage all`, as as-test reads it).
BARE_FOLLOWERS = {"show-coverage": ("all",)}

TASK_PARAMS: list[dict[str, Any]] = [
    {
        "name": "mode",
        "long": "mode",
        "short": "m",
        "type": str,
        "default": "",
        "env_var": "ASTEST_MODE",
        "help": "comma-separated modes to run (default: the config's default modes)",
    },
    {
        "name": "timeout",
        "long": "timeout",
        "type": str,
        "default": f"{TIMEOUT.default:g}",
        "env_var": TIMEOUT.env_var,
        "help": (
            "wall-clock seconds a spec may run before it is stopped and failed; `mode=S` entries "
            "set one mode's, e.g. `--timeout=10,web=30` [default: %(default)s]"
        ),
    },
    {
        "name": "memory_limit",
        "long": "memory-limit",
        "type": str,
        "default": f"{MEMORY_LIMIT.default:g}",
        "env_var": MEMORY_LIMIT.env_var,
        "help": (
            "MiB of memory a spec's wasm may grow to (wasi and bindings); `mode=MIB` entries set "
            "one mode's [default: %(default)s]"
        ),
    },
    {
        "name": "output_limit",
        "long": "output-limit",
        "type": str,
        "default": f"{OUTPUT_LIMIT.default:g}",
        "env_var": OUTPUT_LIMIT.env_var,
        "help": (
            "MiB a spec may write to stdout, frames included, before it is stopped and failed; "
            "`mode=MIB` entries set one mode's [default: %(default)s]"
        ),
    },
    {
        "name": "spec",
        "long": "spec",
        "type": str,
        "default": "",
        "env_var": "ASTEST_SPEC",
        "help": (
            "comma-separated spec names (or parts of them) or globs to run, e.g. `math,nested/*` "
            "(default: every spec of the selected modes)"
        ),
    },
    {
        "name": "suite",
        "long": "suite",
        "type": str,
        "default": "",
        "env_var": "ASTEST_SUITE",
        "help": (
            "comma-separated suites to report, as as-test's --suite: a path of slugified "
            "descriptions (`parent/child`) or a bare leaf name; specs still run whole"
        ),
    },
    {
        "name": "changed",
        "long": "changed",
        "type": str,
        "default": "",
        "env_var": "ASTEST_CHANGED",
        "help": (
            "run only the specs that differ from git REF, themselves or a file they depend on "
            "(imports, snapshots, runner, config), untracked files included, e.g. "
            "`--changed=origin/main`; the astest command takes a bare `--changed` as HEAD"
        ),
    },
    {
        "name": "update_snapshots",
        "long": "update-snapshots",
        "type": str,
        "default": "",
        "env_var": "ASTEST_UPDATE_SNAPSHOTS",
        "help": (
            "write snapshots while running: `create` stores missing ones, `overwrite` also "
            "replaces mismatching ones (as-test's --create-snapshots / --overwrite-snapshots)"
        ),
    },
    {
        "name": "no_snapshot",
        "long": "no-snapshot",
        "type": bool,
        "default": False,
        "env_var": "ASTEST_NO_SNAPSHOT",
        "help": (
            "skip snapshot assertions this run, as as-test 1.8's --no-snapshot: each passes "
            "unchecked, and the next run without it runs those specs again"
        ),
    },
    {
        "name": "show_coverage",
        "long": "show-coverage",
        "type": str,
        "default": "",
        "env_var": "ASTEST_SHOW_COVERAGE",
        "help": (
            "list the uncovered points under the coverage summary: `on` folds the points inside "
            "an uncovered function into it (as-test 1.8), `all` lists each (turns coverage on "
            "unless it is switched off)"
        ),
    },
    {
        "name": "browser",
        "long": "browser",
        "type": str,
        "default": "",
        "env_var": "ASTEST_BROWSER",
        "help": (
            "the browser of web modes this run: chromium, chrome or an executable path, over "
            "BROWSER and runOptions.runtime.browser"
        ),
    },
    {
        "name": "headful",
        "long": "headful",
        "type": bool,
        "default": False,
        "env_var": "ASTEST_HEADFUL",
        "help": (
            "show the browser window while web specs run (headless by default; without a "
            "display they run headless and say so)"
        ),
    },
    {
        "name": "fuzz",
        "long": "fuzz",
        "type": bool,
        "default": False,
        "env_var": "ASTEST_FUZZ",
        "help": (
            "run the fuzz targets too (`doit astest:fuzz` runs only them); `fuzz = true` under "
            "[tool.doit.tasks.astest] in pyproject.toml makes it the project's default"
        ),
    },
    {
        "name": "fuzz_seed",
        "long": "fuzz-seed",
        "type": str,
        "default": "",
        "env_var": "ASTEST_FUZZ_SEED",
        "help": (
            "pin the fuzz seed to replay a campaign (default: the config's fuzz.seed, else a "
            "random seed per doit call, which is never cached)"
        ),
    },
    {
        "name": "fuzz_runs",
        "long": "fuzz-runs",
        "type": str,
        "default": "",
        "env_var": "ASTEST_FUZZ_RUNS",
        "help": "override each fuzzer's run count: 500 sets, 1.5x scales, +100000 or +10%% adds",
    },
    {
        "name": "coverage",
        "long": "coverage",
        "type": str,
        "default": "",
        "env_var": "ASTEST_COVERAGE",
        "help": (
            "`on` or `off` to build and run with or without coverage this time, over the "
            'config\'s "coverage" (default: the config decides)'
        ),
    },
    {
        "name": "enable",
        "long": "enable",
        "short": "e",
        "type": str,
        "default": "",
        "env_var": "ASTEST_ENABLE",
        "help": (
            'comma-separated features to turn on this time, over the config\'s "features", as '
            "as-test 1.8's --enable: `coverage`, `try-as` or an asc feature (`simd`, ...)"
        ),
    },
    {
        "name": "disable",
        "long": "disable",
        "type": str,
        "default": "",
        "env_var": "ASTEST_DISABLE",
        "help": (
            'comma-separated features to turn off this time, over the config\'s "features" '
            "(`coverage`, `try-as` or an asc feature)"
        ),
    },
    {
        "name": "shard",
        "long": "shard",
        "type": str,
        "default": "",
        "env_var": "ASTEST_SHARD",
        "help": (
            "run one part of the suite, k of N (e.g. `--shard=2/4`), for a CI job matrix; each "
            "shard writes its own reports, and `astest merge` combines them"
        ),
    },
    {
        "name": "shard_durations",
        "long": "shard-durations",
        "type": str,
        "default": "",
        "env_var": "ASTEST_SHARD_DURATIONS",
        "help": (
            "a report.json of an earlier run (the same file on every shard): balance the "
            "shards by its recorded durations instead of by hash"
        ),
    },
    {
        "name": "list",
        "long": "list",
        "type": bool,
        "default": False,
        "env_var": "ASTEST_LIST",
        "help": (
            "print the plan instead of running: the spec files, and per selected mode its "
            "target, output folder, runtime, env overrides and artifacts (as-test 1.8's --list)"
        ),
    },
    {
        "name": "list_modes",
        "long": "list-modes",
        "type": bool,
        "default": False,
        "env_var": "ASTEST_LIST_MODES",
        "help": "print the configured modes and which run by default, instead of running",
    },
    {
        "name": "config",
        "long": "config",
        "type": str,
        "default": DEFAULT_CONFIG,
        "env_var": "ASTEST_CONFIG",
        "help": "path of the as-test config file [default: %(default)s]",
    },
]


def task_options(pinned: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The option definitions, with ``pinned`` values (by option name) as fixed defaults."""
    options = copy.deepcopy(TASK_PARAMS)
    for option in options:
        if pinned and option["name"] in pinned:
            option["default"] = pinned[option["name"]]
            option.pop("env_var", None)
    return options


def option_defaults(options: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {option["name"]: option["default"] for option in options}
