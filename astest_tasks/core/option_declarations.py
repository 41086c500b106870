"""How an option of the ``astest`` task creator is declared: once, as a field of the options
record of the stage that reads it.

Each stage that takes options owns a small frozen record of them, declared beside the code that
uses it (``SelectionOptions`` in plan/, ``LimitOptions`` in run/, ``ReportOptions`` in output/,
``RemoteCacheOptions`` in remote/, ...), and is handed that record whole; ``plan/options.py``
puts the records together as ``TaskOptions``. A field is an option: its name is doit's
(``timeout = 30`` under ``[tool.doit.tasks.astest]``), and its ``option(...)`` declaration holds
the rest of what doit needs, from which ``OptionSpec`` is generated: the long flag (the name with
``-``), a short one, the environment variable (``ASTEST_`` and the name in capitals, unless it
names another), the default as given, the help line, how the ``astest`` command completes it when
it is given bare, and its row of the options table (``OptionDoc``). So one field drives the
command line (``doit astest --timeout 30``), the environment (``ASTEST_TIMEOUT=30 doit``), doit's
config files, ``doit help astest``, the ``astest`` command (its doctor's flags too), the
generated dodo.py and the docs.

An option read on its own is parsed into its field by its ``parse`` (a bad value stops with the
option's one-line error and its fix); options read together keep their text, and the record that
holds them makes their joint reading once, when it is made.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import Field, field, replace
from typing import Any

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen, record_fields

_DECLARATION = "astest_option"  # the key of a field's metadata that makes it an option


@frozen
class OptionDoc:
    """The option's row in docs/tasks-and-options.md, which ``plan/options_docs.py`` renders
    from these declarations (a test holds the page to it): the flag as the user types it, the
    environment variable, the default in words, and what it does."""

    flag: str
    env: str
    default: str
    meaning: str


@frozen
class Declared:
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
    # It changes what the summary prints (or its verdict), not the reports' contents, so a
    # change of it alone leaves the reports as they are (output/summary.py).
    printout_only: bool


def option(
    default: str | bool,
    help: str,
    *,
    doc: OptionDoc,
    short: str = "",
    env_var: str = "",
    parse: Callable[[str], Any] | None = None,
    bare: str = "",
    bare_followers: tuple[str, ...] = (),
    printout_only: bool = False,
) -> Any:  # the field's default, as dataclasses.field returns it
    declared = Declared(
        default, help, short, env_var, parse, bare, bare_followers, doc, printout_only
    )
    return field(
        default=parse(str(default)) if parse else default, metadata={_DECLARATION: declared}
    )


def declaration(record_field: Field[Any]) -> Declared | None:
    """The option a field declares; None for a field that is no option (a joint reading)."""
    declared = record_field.metadata.get(_DECLARATION)
    return declared if isinstance(declared, Declared) else None


@frozen
class OptionSpec:
    """One option as doit declares it, generated from its field's declaration."""

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


def declared_options(record_type: type) -> tuple[OptionSpec, ...]:
    """The options a record declares, in its fields' order."""
    options = []
    for record_field in record_fields(record_type):
        declared = declaration(record_field)
        if declared is None:
            continue
        name = record_field.name
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


def stripped(text: str) -> str:
    return text.strip()


def seconds(option_name: str) -> Callable[[str], float]:
    """The parser of an option that is a number of seconds above zero."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not value > 0:
            raise UserError(
                f"--{option_name}: {text!r} is not a number of seconds > 0; fix: e.g. 5"
            )
        return value

    return parse
