"""A record's ``__init__`` without a compile: it assigns the fields itself.

Why: dataclasses writes each record's ``__init__`` as source text and compiles it, 0.1-0.2 ms
a record in a fresh process, and a ``doit`` call with nothing to do makes about 80 records, most
of which it calls a few dozen times at most. So a record made by ``@frozen`` (frozen.py) gets a
plain ``__init__`` that reads its arguments by the fields' order and names. It is also the
faster of the two per call: the compiled one assigns each field through the record's guarded
``__setattr__`` (a Python call a field), where the plain one fills the ``__dict__`` at once: 13
to 16 thousand instructions against 25 to 28 thousand for six fields, 16 to 22 against 58 to 62
thousand for fifteen (issue 40). So it stays, however often the record is made; a call that
gives every argument by name, or every one by place, is taken in one step.

The plain one does what the compiled one does, for a call that fits the signature: it sets
every field ``__init__`` sets, in the fields' order (an argument, else the default, else the
``default_factory``'s new value; an ``init=False`` field with a ``default_factory`` gets its
value), then calls ``__post_init__`` when the record has one. The compiled one sets each through
the record's ``__setattr__``, which lets a field be set once (frozen.py's guard); on an instance
of the record itself with nothing set yet, and no descriptor of a field's name, that lets every
field be set, so the plain one puts them in its ``__dict__`` at once. Any other call (a missing
or unknown argument, one given twice, too many) is handed to the compiled ``__init__``, so its
error is dataclasses' own. A record whose ``__init__`` dataclasses would refuse, or that has
keyword-only or ``InitVar`` fields, is compiled at once.

What dataclasses derives from the compiled ``__init__`` is derived from it when first read:
reading the record's signature (``inspect.signature(Record)``) or, for a record without a
docstring, its ``__doc__`` (where dataclasses writes the signature) compiles it first. Until
then ``Record.__init__`` itself is the plain one, whose own signature is ``(record, /, *args,
**kwargs)``. Compiling reads the record's module as making it does (frozen.py), so a record whose
module has left ``sys.modules`` by then cannot be compiled, and says so.
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

_Init = Callable[..., None]
# A field an __init__ assigns: its name, its place among the arguments (None: init=False), its
# default and its factory.
_Step = tuple[str, int | None, object, Callable[[], object] | None]


class InitPlan:
    """What a plain ``__init__`` assigns: per field, its name, its place among the arguments
    (None for an ``init=False`` field), its default and its factory."""

    __slots__ = (
        "arguments",
        "at_once",
        "factories",
        "least",
        "names",
        "positions",
        "post_init",
        "required",
        "required_set",
        "steps",
        "template",
    )

    def __init__(
        self, fields: Sequence[dataclasses.Field[Any]], post_init: bool, at_once: bool
    ) -> None:
        # One pass over the fields (a call with nothing to do plans about 80 records).
        positions: dict[str, int] = {}
        required: list[str] = []
        steps: list[_Step] = []
        template: dict[str, object] = {}
        factories: list[tuple[str, Callable[[], object]]] = []
        for field in fields:
            name, default, factory = field.name, field.default, _factory(field)
            if field.init:
                positions[name] = len(positions)
                if default is dataclasses.MISSING and factory is None:
                    required.append(name)
            elif factory is None:
                continue  # an init=False field with a plain default: never assigned
            steps.append((name, positions.get(name), default, factory))
            # For the calls that give every argument by name, or every one by place (most
            # calls): the values before the arguments, in the fields' order, a factory's field
            # marked to be made.
            template[name] = default if factory is None else _MADE
            if factory is not None:
                factories.append((name, factory))
        self.positions = positions
        self.required = tuple(required)
        self.steps = tuple(steps)
        self.post_init = post_init
        self.at_once = at_once  # the fields may go into a fresh instance's __dict__ at once
        self.names = tuple(positions)
        self.arguments = frozenset(positions)
        self.template = template
        self.factories = tuple(factories)
        self.required_set = frozenset(required)
        # What such a call must give: the required arguments come first (plan_of).
        leading = self.required == self.names[: len(required)]
        self.least = len(required) if leading else None

    def fits(self, args: tuple[object, ...], kwargs: Mapping[str, object]) -> bool:
        """Whether the compiled ``__init__`` would take these arguments without an error."""
        given = len(args)
        if given > len(self.positions):
            return False
        for name in kwargs:
            place = self.positions.get(name)
            if place is None or place < given:  # unknown, or given by place too
                return False
        return all(self.positions[name] < given or name in kwargs for name in self.required)


def may_wait_to_compile(body: Mapping[str, Any]) -> bool:
    """Whether a record with this class body may start with a plain ``__init__`` (the rest of
    the rule needs its fields: ``plan_for``)."""
    return "__init__" not in body


def plan_for(
    body: Mapping[str, Any], made: type, fields: Sequence[dataclasses.Field[Any]]
) -> InitPlan | None:
    """The plan for a record dataclasses made without ``__init__`` (``made``, from the class
    ``body``); None when it must be compiled at once (see above)."""
    declared = vars(made)["__dataclass_fields__"]
    names = {field.name for field in fields}
    pseudo = [declared[name] for name in declared if name not in names]
    if not all(map(_is_class_variable, pseudo)):  # an InitVar
        return None
    return plan_of(body, made, fields)


def plan_of(
    body: Mapping[str, Any], made: type, fields: Sequence[dataclasses.Field[Any]]
) -> InitPlan | None:
    """``plan_for`` a record with no pseudo-field but ``ClassVar``s (whose fields were read off
    its ``body`` without dataclasses, frozen.py)."""
    if not may_wait_to_compile(body):
        return None
    # The classes' own attributes, read once for every field (a slot, a property...).
    attributes = [vars(klass) for klass in made.__mro__]
    at_once = True
    for field in fields:
        if field.kw_only is True:
            return None
        if at_once and _data_descriptor(attributes, field.name):
            at_once = False
    plan = InitPlan(fields, post_init=hasattr(made, "__post_init__"), at_once=at_once)
    # An argument without a default after one with one: dataclasses' compile refuses it, which
    # the record must raise as before.
    return None if plan.least is None else plan


# dataclasses' mark of a ClassVar pseudo-field (3.11 and 3.12, where @frozen shares methods); a
# dataclasses without it has every pseudo-field taken for an InitVar, so compiled at once.
_CLASS_VARIABLE: Final = getattr(dataclasses, "_FIELD_CLASSVAR", object())


def _is_class_variable(pseudo_field: dataclasses.Field[Any]) -> bool:
    return getattr(pseudo_field, "_field_type", None) is _CLASS_VARIABLE


def _data_descriptor(attributes: Sequence[Mapping[str, object]], name: str) -> bool:
    """Whether setting ``name`` on an instance of a class whose MRO's own ``attributes`` these
    are goes through a descriptor (a slot, a property, a descriptor-typed field's default),
    which the compiled ``__init__`` would call."""
    for own in attributes:
        if name in own:
            kind = type(own[name])
            return hasattr(kind, "__set__") or hasattr(kind, "__delete__")
    return False


def uncompiled_init(owner: type, plan: InitPlan, compile_init: Callable[[], _Init]) -> _Init:
    """``owner``'s plain ``__init__``. ``compile_init`` makes the compiled one, which is put on
    ``owner`` in its place (once for every thread, unless something else has replaced it there
    since) when a call does not fit, to raise dataclasses' own error, or when the signature or
    docstring dataclasses derives from it is first read. The fields go into the ``__dict__`` at
    once only for an instance of ``owner`` itself with nothing set yet and no descriptor of a
    field's name (``InitPlan``): a subclass may have a ``__setattr__``, a property or a slot of
    its own, which the compiled ``__init__`` sets each field through, and so does this one."""
    compiled: _Init | None = None
    lock = threading.Lock()
    steps, post_init, fits, at_once = plan.steps, plan.post_init, plan.fits, plan.at_once
    template, names, factories = plan.template, plan.names, plan.factories
    arguments, required, least, most = plan.arguments, plan.required_set, plan.least, len(names)

    def installed() -> _Init:
        nonlocal compiled
        with lock:
            if compiled is None:
                compiled = compile_init()
                if owner.__dict__.get("__init__") is __init__:
                    owner.__init__ = compiled  # type: ignore[misc]
                drop_signature_stand_in(owner)
        return compiled

    # The record comes first and by place only, so that a field called "self" (or "record")
    # is an argument like any other, as in the compiled __init__.
    def __init__(record: Any, /, *args: object, **kwargs: object) -> None:
        # What fits() checks, at once for the calls that give every argument by name or every
        # one by place (most calls): a record is made about a thousand times in a call.
        values: dict[str, object] | None = None
        if not args:  # every argument by name: each is one, and the required are there
            if kwargs.keys() <= arguments and kwargs.keys() >= required:
                values = {**template, **kwargs}  # in the template's order: the fields'
        elif not kwargs and least is not None:  # every argument by place
            if least <= len(args) <= most:
                values = dict(template)
                values.update(zip(names, args, strict=False))
        elif fits(args, kwargs):
            values = _assigned_one_by_one(steps, args, kwargs)
        if values is None:  # the compiled __init__ takes it, or raises dataclasses' TypeError
            installed()(record, *args, **kwargs)
            return
        for name, factory in factories:
            if values[name] is _MADE:
                values[name] = factory()
        if at_once and type(record) is owner and not record.__dict__:
            # Its __setattr__ (frozen.py's guard) lets each field be set once; none is yet.
            record.__dict__.update(values)
        else:
            for name, value in values.items():
                setattr(record, name, value)
        if post_init:
            record.__post_init__()

    __init__.__qualname__ = f"{owner.__qualname__}.__init__"
    __init__.__module__ = owner.__module__
    __init__.compile_now = installed  # type: ignore[attr-defined]
    return __init__


def _assigned_one_by_one(
    steps: Sequence[_Step],
    args: tuple[object, ...],
    kwargs: Mapping[str, object],
) -> dict[str, object]:
    """The fields' values for a call that gives some arguments by place and some by name."""
    given = len(args)
    values = {}
    for name, place, default, factory in steps:
        if place is None:  # an init=False field: it has a default_factory (InitPlan)
            value = factory()  # type: ignore[misc]
        elif place < given:
            value = args[place]
        elif name in kwargs:
            value = kwargs[name]
        elif factory is not None:
            value = factory()
        else:
            value = default
        values[name] = value
    return values


# In a plain __init__'s template: the field's default_factory makes its value (frozen_init).
_MADE: Final = object()


class SignatureOnceCompiled:
    """A record's ``__signature__`` until its ``__init__`` is compiled: reading the record's
    signature (``inspect.signature(Record)``, which reads this first) makes the record with
    ``make`` and compiles its ``__init__``, and this stand-in leaves, so that inspect goes on
    to dataclasses' signature, as for any dataclass. An instance has no ``__signature__``, as
    an instance of a dataclass has none."""

    __slots__ = ("make", "owner")

    def __init__(self, owner: type, make: Callable[[type], None]) -> None:
        self.owner = owner
        self.make = make

    def __get__(self, instance: object, owner_type: type | None = None) -> None:
        if instance is None:
            compiled_now(self.owner, self.make)
        # Then as for any dataclass, which has no __signature__: inspect reads __init__'s.
        raise AttributeError("__signature__")


class DocOnceCompiled:
    """The ``__doc__`` of a record whose class has no docstring: dataclasses writes the
    signature of ``__init__`` there, so it is written when first read, from the compiled one
    (Python reads a class's ``__doc__`` through ``__get__``, for the class and its
    instances)."""

    __slots__ = ("make", "owner")

    def __init__(self, owner: type, make: Callable[[type], None]) -> None:
        self.owner = owner
        self.make = make

    def __get__(self, instance: object, owner_type: type | None = None) -> str:
        compiled_now(self.owner, self.make)
        # dataclasses' own text for a class without a docstring
        try:
            signature = str(inspect.signature(self.owner)).replace(" -> None", "")
        except (TypeError, ValueError):  # as dataclasses: some signatures cannot be read
            signature = ""
        text = self.owner.__name__ + signature
        if self.owner.__dict__.get("__doc__") is self:
            self.owner.__doc__ = text
        return text


def compiled_now(owner: type, make: Callable[[type], None]) -> None:
    """Make the record ``owner`` (``make``) and compile its ``__init__``, if not done yet."""
    make(owner)
    compile_now = getattr(owner.__dict__.get("__init__"), "compile_now", None)
    if compile_now is not None:
        compile_now()
    drop_signature_stand_in(owner)


def drop_signature_stand_in(owner: type) -> None:
    """Take the ``SignatureOnceCompiled`` off ``owner``, once its ``__init__`` is compiled."""
    if isinstance(owner.__dict__.get("__signature__"), SignatureOnceCompiled):
        delattr(owner, "__signature__")


def _factory(field: dataclasses.Field[Any]) -> Callable[[], object] | None:
    factory = field.default_factory
    return None if factory is dataclasses.MISSING else factory
