"""The fuzz options of a call, as given: declared here (core/option_declarations.py says how) and
read with the config's fuzz block, which completes the seed and the runs, into the call's fuzz
plan (plan/fuzz_plan.py), which takes the record whole as ``TaskOptions.fuzzing``."""

from __future__ import annotations

from astest_tasks.config.selection import selector_names
from astest_tasks.core.frozen import frozen
from astest_tasks.core.option_declarations import OptionDoc, option


@frozen
class FuzzCallOptions:
    """Whether a plain run fuzzes too, and the seed, runs and fuzzers asked for."""

    fuzz: bool = option(
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
    fuzz_seed: str = option(
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
    fuzz_runs: str = option(
        "",
        "override each fuzzer's run count: 500 sets, 1.5x scales, +100000 or +10%% adds",
        doc=OptionDoc(
            flag="`--fuzz-runs R`",
            env="`ASTEST_FUZZ_RUNS`",
            default="each fuzzer's own",
            meaning="`500` sets every fuzzer's runs, `1.5x` scales, `+100000` or `+10%` adds",
        ),
    )
    fuzzer: tuple[str, ...] = option(
        "",
        "comma-separated fuzzers to report, as as-test's `ast fuzz --fuzzer`: names compared "
        "slugified; every fuzzer of a file still runs, and a name no fuzzer has fails its file",
        parse=selector_names,
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
