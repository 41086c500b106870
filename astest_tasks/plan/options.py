"""The options of the ``astest`` task creator: each stage's record of them, put together.

An option is one field of the record of the stage that reads it (core/option_declarations.py
says how a field declares it): ``SelectionOptions`` (plan/), ``LimitOptions`` (run/),
``RunSwitchOptions`` and ``FeatureOptions`` (config/), ``ReportOptions`` (output/),
``FuzzCallOptions`` (fuzz/), ``ListingOptions`` (plan/) and ``RemoteCacheOptions`` (remote/).
``TaskOptions`` holds one of each, in ``GROUPS``' order, which is ``doit help``'s and the docs
table's; the stages are handed their record whole (``options.limits``, ``options.report``).

``TaskOptions.from_values`` reads doit's values once, each into its record's field:
- an option read on its own is parsed into its field (``mode`` into names, ``spec`` into
  selectors, ``update_snapshots`` into a ``SnapshotUpdate``, ``coverage`` into on/off/None,
  ``shard`` into a ``Shard``);
- options read together keep their text, and their joint reading is made with their record
  (``features`` from ``enable`` and ``disable``, ``switches``), or with this one when it joins
  two records (``run_coverage``);
- options read against the config keep their text until it is loaded: the limits take
  per-mode entries (``10,web=30``), and the config's fuzz block completes the seed and runs.
A bad value stops the record with the option's one-line error and its fix.

A task creator made with pinned values (``make_astest_tasks(modes=...)``) takes them as its
defaults, and those options lose their environment variable: one ``ASTEST_CONFIG`` must not
retarget every instance in a dodo.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any

from astest_tasks.config.feature_options import FeatureOptions
from astest_tasks.config.feature_switches import FeatureSwitches, combined_coverage
from astest_tasks.config.run_switch_options import RunSwitchOptions
from astest_tasks.config.run_switches import RunSwitches, ShowCoverage
from astest_tasks.core.frozen import frozen
from astest_tasks.core.option_declarations import OptionSpec, declared_options
from astest_tasks.fuzz.fuzz_options import FuzzCallOptions
from astest_tasks.output.report_options import ReportOptions
from astest_tasks.plan.listing_options import ListingOptions
from astest_tasks.plan.selection_options import SelectionOptions
from astest_tasks.remote.cache_options import RemoteCacheOptions
from astest_tasks.run.limit_options import LimitOptions

# Each stage's options record, by the name TaskOptions holds it under, in doit help's order.
GROUPS: tuple[tuple[str, type], ...] = (
    ("selection", SelectionOptions),
    ("limits", LimitOptions),
    ("run_switches", RunSwitchOptions),
    ("feature_switches", FeatureOptions),
    ("report", ReportOptions),
    ("fuzzing", FuzzCallOptions),
    ("listing", ListingOptions),
    ("remote", RemoteCacheOptions),
)


@frozen
class TaskOptions:
    """One call's options, each read once, in the records of the stages that read them."""

    selection: SelectionOptions = field(default_factory=SelectionOptions)
    limits: LimitOptions = field(default_factory=LimitOptions)
    run_switches: RunSwitchOptions = field(default_factory=RunSwitchOptions)
    feature_switches: FeatureOptions = field(default_factory=FeatureOptions)
    report: ReportOptions = field(default_factory=ReportOptions)
    fuzzing: FuzzCallOptions = field(default_factory=FuzzCallOptions)
    listing: ListingOptions = field(default_factory=ListingOptions)
    remote: RemoteCacheOptions = field(default_factory=RemoteCacheOptions)

    # The joint reading of two records' options, made once with this one (no option itself).
    run_coverage: bool | None = field(init=False, repr=False, compare=False)  # None: the config

    def __post_init__(self) -> None:
        run_coverage = combined_coverage(
            self.feature_switches.coverage,
            self.features,
            show_coverage=self.switches.show_coverage is not ShowCoverage.NONE,
        )
        object.__setattr__(self, "run_coverage", run_coverage)  # frozen: set once, here

    @property
    def features(self) -> FeatureSwitches:
        return self.feature_switches.features

    @property
    def switches(self) -> RunSwitches:
        return self.run_switches.switches

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> TaskOptions:
        """The record of doit's option values by name (one not given takes its declared
        default), each parsed once; a bad value raises its one-line ``UserError``."""
        _check_names(values)
        given = {spec.name: spec.read(values[spec.name]) for spec in OPTIONS if spec.name in values}
        return cls.with_values(**given)

    @classmethod
    def with_values(cls, **parsed: Any) -> TaskOptions:
        """The record of options already read (``with_values(timeout="5", fuzz=True)``), each
        into its stage's record; the rest take their defaults."""
        _check_names(parsed)
        by_group: dict[str, dict[str, Any]] = {group: {} for group, _ in GROUPS}
        for name, value in parsed.items():
            by_group[GROUP_OF[name]][name] = value
        records = {group: record_type(**by_group[group]) for group, record_type in GROUPS}
        return cls(**records)


def _check_names(values: Mapping[str, Any]) -> None:
    unknown = sorted(set(values) - OPTION_NAMES)
    if unknown:
        raise TypeError(f"not options of the astest tasks: {', '.join(unknown)}")


# Each stage's options, read once from its record's declarations.
_BY_GROUP = {group: declared_options(record_type) for group, record_type in GROUPS}


OPTIONS = tuple(option for options in _BY_GROUP.values() for option in options)
OPTION_NAMES = frozenset(option.name for option in OPTIONS)
# Which record of TaskOptions holds each option.
GROUP_OF = {option.name: group for group, options in _BY_GROUP.items() for option in options}
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
