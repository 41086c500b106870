"""``type_hints``: ``typing.get_type_hints`` of a record, with each annotation text compiled once.

Why: the records' codec (records.py) reads each record type's fields by their types, and
``get_type_hints`` compiles every annotation's text anew (a ``ForwardRef`` each), about 0.1
million instructions an annotation. A call with nothing to do reads the types of the result's
nine records, some 6 million instructions (issue 40), for a handful of texts that repeat
(``str``, ``int``, ``tuple[str, ...]``).

For a record of one class of its own (no base but ``object``) whose annotations are all texts
(``from __future__ import annotations``), ``type_hints`` evaluates each text as
``get_type_hints`` does (Python 3.11-3.13): in the record's module first, then in the class's
own namespace, then the builtins, with ``None`` read as ``type(None)``. What that evaluation
leaves for ``get_type_hints`` to go on with (a text inside a generic, an ``Annotated``, a
``Required``, a value that is no type, ``Generic`` itself), a text that is no expression, a
``@no_type_check`` class and any other class are ``get_type_hints``' own to answer. A test
holds every record of the package to ``get_type_hints``.
"""

from __future__ import annotations

import sys
import types
import typing
from typing import Any

# Each annotation text, compiled: the same texts annotate most fields.
_COMPILED: dict[str, types.CodeType] = {}


def type_hints(record_type: type) -> dict[str, Any]:
    """``typing.get_type_hints(record_type)``."""
    module = sys.modules.get(record_type.__module__)
    # where get_type_hints reads them, a class's own
    annotations = record_type.__dict__.get("__annotations__", {})  # noqa: RUF063
    if (
        module is None
        or record_type.__mro__[1:] != (object,)
        or getattr(record_type, "__no_type_check__", False)
    ):
        return typing.get_type_hints(record_type)
    # get_type_hints' order: the module's names first, then the class's own (its "globals").
    class_names, module_names = dict(vars(record_type)), vars(module)
    hints: dict[str, Any] = {}
    for name, text in annotations.items():
        code = _compiled(text) if isinstance(text, str) else None
        if code is None:  # not a text, or not an expression: get_type_hints' own error
            return typing.get_type_hints(record_type)
        try:
            hint = eval(code, class_names, module_names)  # our own records' texts
        except Exception:  # a name only a type checker imports, and the like
            return typing.get_type_hints(record_type)  # which raises its own error
        if hint is None:
            hint = type(None)
        if not _plain_type(hint):
            return typing.get_type_hints(record_type)
        hints[name] = hint
    return hints


def _compiled(text: str) -> types.CodeType | None:
    code = _COMPILED.get(text)
    if code is None:
        try:
            code = compile(text, "<annotation>", "eval")
        except SyntaxError:
            return None
        _COMPILED[text] = code
    return code


def _plain_type(hint: object) -> bool:
    """Whether ``hint`` is what ``get_type_hints`` would give for it unchanged: a class, or a
    generic or union of such (no text left inside to evaluate, no ``Annotated`` to strip)."""
    if hint is typing.Any:
        return True
    if isinstance(hint, type):
        # Generic and Protocol are classes that get_type_hints refuses as a field's type
        return hint is not typing.Generic and hint is not typing.Protocol
    origin = typing.get_origin(hint)
    if origin is None or origin in _WRAPPERS:
        return False
    arguments = typing.get_args(hint)
    return all(argument is Ellipsis or _plain_type(argument) for argument in arguments)


# What get_type_hints unwraps (Annotated's metadata, a TypedDict's Required and NotRequired).
_WRAPPERS = (typing.Annotated, typing.Required, typing.NotRequired)
