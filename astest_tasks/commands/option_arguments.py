"""Flags of an ``astest`` subcommand generated from the task options' declarations
(``plan/options.py``), so that a subcommand taking a task option (``astest doctor --config``)
never restates its flags, default, help or environment variable.

A value is resolved as doit resolves a task option's: the command line's, else the option's
environment variable's, else its declared default.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection, Mapping, Sequence

from astest_tasks.core.option_declarations import OptionSpec
from astest_tasks.plan.options import option_specs


def add_option_arguments(
    parser: argparse.ArgumentParser,
    names: Sequence[str],
    *,
    repeatable: Collection[str] = (),
) -> None:
    """One flag per named task option; a ``repeatable`` one may be given more than once, its
    values joined with commas (for the comma-separated options, such as ``--mode``)."""
    specs = _specs(names)
    for name in names:
        spec = specs[name]
        if not spec.takes_value:
            raise ValueError(f"--{spec.long}: only options that take a value are generated")
        flags = [f"-{spec.short}"] if spec.short else []
        parser.add_argument(
            *flags,
            f"--{spec.long}",
            dest=name,
            default=None,  # not given: the environment's, else the declared default
            action="append" if name in repeatable else "store",
            help=argument_help(spec, repeatable=name in repeatable),
        )


def argument_help(spec: OptionSpec, *, repeatable: bool) -> str:
    """The declaration's help as ``doit help`` renders it, naming the environment variable
    (escaped for argparse, which formats help texts with ``%``)."""
    text = spec.help % {"default": spec.default}
    if repeatable:
        text += "; repeatable"
    return f"{text} (environment: {spec.env_var})".replace("%", "%%")


def option_values(
    parsed: argparse.Namespace, names: Sequence[str], environ: Mapping[str, str]
) -> dict[str, str]:
    """Each named option's value as given, by option name: the command line's, else its
    environment variable's, else its declared default."""
    specs = _specs(names)
    values = {}
    for name in names:
        given = getattr(parsed, name)
        if isinstance(given, list):
            given = ",".join(given)
        spec = specs[name]
        values[name] = given if given is not None else environ.get(spec.env_var, str(spec.default))
    return values


def _specs(names: Sequence[str]) -> dict[str, OptionSpec]:
    specs = {spec.name: spec for spec in option_specs()}
    unknown = [name for name in names if name not in specs]
    if unknown:
        raise ValueError(f"not options of the astest tasks: {', '.join(unknown)}")
    return specs
