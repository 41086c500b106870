"""The options that choose what a call plans: the config file, the modes, the specs, the shard.
Declared here (core/option_declarations.py says how) and read by planning (planning.py,
plan_specs.py) and the factory's shard, handed over whole as ``TaskOptions.selection``."""

from __future__ import annotations

from astest_tasks.config.project_config import split_mode_names
from astest_tasks.config.selection import selector_names
from astest_tasks.config.shards import Shard
from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.option_declarations import OptionDoc, option, stripped

DEFAULT_CONFIG = "as-test.config.json"


def _mode_names(text: str) -> tuple[str, ...]:
    return tuple(split_mode_names([text]))


# A bare --changed: what the working tree changed since the last commit. Declared with the
# option, so a call that does not ask for changes never loads git_changes.py (issue 40).
DEFAULT_REF = "HEAD"


@frozen
class SelectionOptions:
    """Which config, modes and specs this call plans, and which part of them (a CI shard)."""

    config: str = option(
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
    mode: tuple[str, ...] = option(
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
    spec: tuple[str, ...] = option(
        "",
        "comma-separated spec names (or parts of them) or globs to run, e.g. `math,nested/*` "
        "(default: every spec of the selected modes)",
        parse=selector_names,
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
    changed: str = option(
        "",
        "run only the specs that differ from git REF, themselves or a file they depend on "
        "(imports, snapshots, runner, config), untracked files included, e.g. "
        "`--changed=origin/main`; the astest command takes a bare `--changed` as HEAD",
        parse=stripped,
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
    last_failed: bool = option(
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
    shard: Shard | None = option(
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
    shard_durations: str = option(
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

    def __post_init__(self) -> None:
        if self.shard_durations and self.shard is None:
            raise UserError("--shard-durations needs --shard; fix: add --shard=k/N")
