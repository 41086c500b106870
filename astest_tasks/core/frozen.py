"""``@frozen``: our records' decorator, a frozen dataclass that is cheap to define.

Why not ``@dataclass(frozen=True)`` itself: on Python 3.11, dataclasses writes each of a frozen
record's six methods (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``) as source text and compiles it with an ``exec`` of its own, about 0.48 ms a
class. A ``doit`` call with nothing to do defines some 120 records before doit runs a task, and
those compiles were about 40 ms of its 0.25 s (docs/performance.md). Here dataclasses compiles
at most ``__init__``, and only when a call does not fit it or its signature is read (a plain one
assigns the fields otherwise, frozen_init.py); every record shares the other five methods,
written once below, which behave as the generated ones do:

- equal when of the very same class and their compared fields are equal, compared as tuples as
  Python 3.11 and 3.12 do (a field with ``field(compare=False)`` is left out), else
  ``NotImplemented``;
- hashed by the fields dataclasses would hash (compared ones, or ``field(hash=True)``), so equal
  records have equal hashes and a record is a dict key as before;
- shown as ``ClassName(field=value, ...)``, leaving out ``field(repr=False)``, with ``...`` for a
  record that contains itself;
- frozen: assigning or deleting a field, or any attribute of the record itself, raises
  ``dataclasses.FrozenInstanceError`` with dataclasses' message. The one difference is how
  ``__init__`` gets its fields in: it assigns each, and the guard lets a field ``__init__`` sets
  be set while it is not set yet, once (about a microsecond more to make a record). A plain
  subclass may set attributes of its own, as dataclasses allows; ``__post_init__`` may still set
  a derived field with ``object.__setattr__``.

A record is made when first used, not when its module is imported (a ``doit`` call with nothing
to do imports about 120 records and uses about 80), and its ``__init__`` is a plain one that
fills the fields itself (frozen_init.py). What its instances need (``__init__``, and the field
names the shared methods read) is made from the class body as written, without dataclasses, for
a record whose fields are all plain (``_make_from_body``); dataclasses makes the record when one
of its own names is first read (``dataclasses.fields``, ``is_dataclass``, ``__match_args__``...).

``@frozen`` sets the shared methods at once, turns each ``field(...)`` class attribute into its
default as dataclasses would, and leaves a stand-in for each name dataclasses adds
(``__init__``, ``__dataclass_fields__``, ``__doc__``...). Reading any stand-in makes the record
(or, for ``__init__`` and the shape, that part of it): dataclasses makes a scratch copy of the
class body, and what it added is set on the record, ``__init__`` last, under a lock that other
threads' stand-ins wait on. So a record that dataclasses refuses (a field without a default
after one with), or whose making is interrupted, is left as it was, and each use raises
dataclasses' error again; a test makes every record of the package, and mypy reports such
mistakes too. An instance that
pickle, ``copy`` or ``quick_expectation`` brings in without ``__init__`` makes its class when it is
first compared, hashed or shown. A record whose base may keep a registry of subclasses (an
``__init_subclass__`` other than ``Generic``'s) or has a metaclass is made at once, in place;
one whose module has left ``sys.modules`` by its first use, or by the time its ``__init__`` is
compiled (frozen_init.py), cannot be made (dataclasses reads string annotations through the
module) and says so.

Type checkers read ``@frozen`` as ``@dataclass(frozen=True)`` (``dataclass_transform``), so an
assignment to a record's field is a mypy error as well. ``dataclasses.fields``, ``replace`` and
``asdict`` work unchanged: a record is a dataclass. A method the class writes itself is kept, as
dataclasses keeps it.

Where sharing does not fit, ``frozen`` is ``@dataclass(frozen=True)`` itself: for a record that
inherits from a dataclass (its methods must be dataclasses' own), and from Python 3.13 on, whose
dataclasses compiles a class's methods in one ``exec``. ``frozen`` takes no options: a record
compared by identity writes its own ``__eq__`` and sets ``__hash__ = object.__hash__``, both kept
(config/keys.py's declarations); an ordered one, or one with ``__slots__``, uses ``@dataclass``
directly.
"""

from __future__ import annotations

import dataclasses
import operator
import re
import reprlib
import sys
import threading
import types
import typing
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Final, TypeVar, dataclass_transform

from astest_tasks.core.frozen_init import (
    DocOnceCompiled,
    SignatureOnceCompiled,
    drop_signature_stand_in,
    may_wait_to_compile,
    plan_for,
    plan_of,
    uncompiled_init,
)

_T = TypeVar("_T")
_Key = Callable[[object], tuple[object, ...]]

# Where each record class keeps what its shared methods read: set once, when the record is made.
_SHAPE: Final = "__frozen_shape__"

# What making a record adds to its class (dataclasses' part, and the shape), in the order
# ``_make`` installs it: the shape first and ``__init__`` last, so that another thread that finds
# ``__init__`` finds the rest too.
_MADE_BY_DATACLASSES: Final = (
    _SHAPE,
    "__dataclass_fields__",
    "__dataclass_params__",
    "__match_args__",
    "__doc__",
    "__init__",
)
# On a record class not made yet: its ``_Pending``.
_PENDING: Final = "__frozen_pending__"
# One thread makes a record; the others wait for it (doit -P thread runs tasks in threads).
_MAKING: Final = threading.RLock()


# From 3.13 on, dataclasses compiles a class's methods in one ``exec`` (and compares fields one
# by one rather than as tuples): there ``frozen`` is ``@dataclass(frozen=True)`` itself.
_SHARES_METHODS: Final = sys.version_info < (3, 13)


class _RecordShape:
    """A record class's field names, as the shared methods need them (a plain class: this
    module exists to define fewer dataclasses)."""

    __slots__ = ("compared", "fields", "hashed", "owner", "record_fields", "set_by_init", "shown")

    def __init__(self, owner: type, fields: Sequence[dataclasses.Field[Any]]) -> None:
        self.owner = owner
        self.record_fields = tuple(fields)  # as dataclasses.fields gives them (record_fields)
        self.fields = frozenset(field.name for field in fields)
        # What __init__ assigns: an init=False field with a plain default is never assigned
        # (it reads the class's default), so nothing may assign it later either.
        self.set_by_init = frozenset(
            field.name
            for field in fields
            if field.init or field.default_factory is not dataclasses.MISSING
        )
        self.shown = tuple(field.name for field in fields if field.repr)
        self.compared = _tuple_of([field.name for field in fields if field.compare])
        # dataclasses' own rule for which fields a generated __hash__ reads, in field order
        self.hashed = _tuple_of([field.name for field in fields if _hashed(field)])


def _tuple_of(names: Sequence[str]) -> _Key:
    """The named attributes as a tuple, always a tuple (``attrgetter`` of one name is not)."""
    if len(names) >= 2:
        return operator.attrgetter(*names)
    if len(names) == 1:
        (name,) = names
        return lambda record: (getattr(record, name),)
    return lambda _record: ()


def _hashed(field: dataclasses.Field[Any]) -> bool:
    return bool(field.compare if field.hash is None else field.hash)


def record_fields(record_type: type) -> tuple[dataclasses.Field[Any], ...]:
    """``dataclasses.fields(record_type)``, without having dataclasses make a ``@frozen`` record
    whose fields its class body tells (``_make_from_body``): the option declarations and the
    records' codec read the fields of records that a call otherwise only makes instances of.
    For such a record the fields are copies of dataclasses' own, equal field by field (a
    ``Field`` compares by identity, so ``in dataclasses.fields(...)`` would not find them).
    Any other class is dataclasses' to answer (a TypeError for one that is not a dataclass)."""
    if _SHAPE in record_type.__dict__:  # a @frozen record itself, made or not
        shape: _RecordShape = getattr(record_type, _SHAPE)
        return shape.record_fields
    return dataclasses.fields(record_type)


def is_record_type(value: object) -> bool:
    """``isinstance(value, type) and dataclasses.is_dataclass(value)``, without having
    dataclasses make a ``@frozen`` record to answer."""
    return isinstance(value, type) and (_SHAPE in value.__dict__ or dataclasses.is_dataclass(value))


def _shape(record: object) -> _RecordShape:
    shape: _RecordShape = getattr(type(record), _SHAPE)
    return shape


def _equal(self: object, other: object) -> object:
    if other.__class__ is not self.__class__:
        return NotImplemented
    compared = _shape(self).compared
    return compared(self) == compared(other)


def _hash(self: object) -> int:
    return hash(_shape(self).hashed(self))


@reprlib.recursive_repr()
def _repr(self: object) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _shape(self).shown)
    return f"{type(self).__qualname__}({shown})"


def _assign_once(self: object, name: str, value: object) -> None:
    shape = _shape(self)
    if name in shape.set_by_init and name not in self.__dict__:
        object.__setattr__(self, name, value)  # __init__ setting it, the only time
    elif type(self) is shape.owner or name in shape.fields:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
    else:  # an attribute of a plain subclass's own, which dataclasses allows too
        object.__setattr__(self, name, value)


def _refuse_delete(self: object, name: str) -> None:
    shape = _shape(self)
    if type(self) is shape.owner or name in shape.fields:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _keeps_own_hash(namespace: dict[str, Any]) -> bool:
    """Whether the class wrote its own ``__hash__`` (dataclasses' rule: a class that writes
    ``__eq__`` alone gets ``__hash__ = None`` from Python, which is not its own)."""
    own = namespace.get("__hash__", dataclasses.MISSING)
    return not (own is dataclasses.MISSING or (own is None and "__eq__" in namespace))


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def frozen(cls: type[_T]) -> type[_T]:
    """``cls`` as a frozen dataclass whose shared methods cost nothing to define, made when first
    used (see above)."""
    if not _SHARES_METHODS or any(dataclasses.is_dataclass(base) for base in cls.__mro__[1:]):
        # A dataclass's subclass is dataclasses' own to check and make (a frozen base's must be
        # frozen its way, a mutable base's cannot be): the cost this module saves is paid for
        # the few records that inherit.
        return dataclasses.dataclass(cls, frozen=True)
    namespace = dict(cls.__dict__)
    for refused in ("__setattr__", "__delattr__"):
        if refused in namespace:  # as @dataclass(frozen=True) refuses them
            raise TypeError(f"Cannot overwrite attribute {refused} in class {cls.__name__}")
    # Set now, not when the record is made: an instance that pickle or copy brings in before
    # the class was used compares, hashes and shows as any other (each asks for the shape,
    # which makes the record).
    for name, method in _shared_methods(namespace).items():
        setattr(cls, name, method)
    if _can_wait(cls):
        _wait_for_first_use(cls, namespace)
    else:
        _make_dataclass(cls, owner=cls)  # made now, in place
    return cls


def _shared_methods(namespace: dict[str, Any]) -> dict[str, Callable[..., object]]:
    shared: dict[str, Callable[..., object]] = {
        "__setattr__": _assign_once,
        "__delattr__": _refuse_delete,
    }
    if "__repr__" not in namespace:
        shared["__repr__"] = _repr
    if "__eq__" not in namespace:
        shared["__eq__"] = _equal
    if not _keeps_own_hash(namespace):
        shared["__hash__"] = _hash
    return shared


def _can_wait(cls: type) -> bool:
    """Whether the record can be made later from a scratch copy of its class: making a copy
    runs no metaclass and no base's ``__init_subclass__`` of the record's (they could keep a
    registry), but ``Generic``'s, which only sets the copy's own type parameters (a generic
    record, config/keys.py's ``Key``, is made when first used too)."""
    return type(cls) is type and not any(
        "__init_subclass__" in vars(base) and base is not typing.Generic
        for base in cls.__mro__[1:-1]
    )


class _Pending:
    """On a record class not made yet (as ``_PENDING``): the class body as written, and the
    names standing in for what making it will add."""

    __slots__ = ("deferred", "namespace")

    def __init__(self, namespace: dict[str, Any], deferred: tuple[str, ...]) -> None:
        self.namespace = namespace
        self.deferred = deferred


def _wait_for_first_use(cls: type, namespace: dict[str, Any]) -> None:
    # dataclasses turns a field's ``field(...)`` class attribute into its default (or removes
    # it, for one without): done now, so that the class and an instance made without __init__
    # read what they would read once the record is made. The body as written keeps them.
    for name in namespace.get("__annotations__", {}):
        value = namespace.get(name)
        if isinstance(value, dataclasses.Field):
            if value.default is dataclasses.MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, value.default)
    deferred = tuple(
        name
        for name in _MADE_BY_DATACLASSES
        # dataclasses writes the signature into a falsy docstring (None, or "")
        if (not namespace.get(name) if name == "__doc__" else name not in namespace)
    )
    for name in deferred:
        setattr(cls, name, _MadeOnFirstUse(cls, name))
    if (
        "__init__" in deferred
        and "__signature__" not in namespace
        and may_wait_to_compile(namespace)
    ):
        cls.__signature__ = SignatureOnceCompiled(cls, _make)  # type: ignore[attr-defined]
    setattr(cls, _PENDING, _Pending(namespace, deferred))


class _MadeOnFirstUse:
    """A name dataclasses will add to a record class: reading it makes the record, then reads
    what dataclasses put there.

    Why not make every record when its module is imported: a ``doit`` call with nothing to do
    imports about 120 records and uses about 80, and making one (fields, ``__init__``'s compile)
    is most of what defining it costs."""

    __slots__ = ("name", "owner")

    def __init__(self, owner: type, name: str) -> None:
        self.owner = owner
        self.name = name

    def __get__(self, instance: object, owner_type: type | None = None) -> object:
        if self.name in _MADE_FROM_THE_BODY:
            _make_from_body(self.owner)
        else:
            _make(self.owner)
        # What the lookup that found this stand-in finds now: the record's own attribute, bound
        # as Python binds it (not a new lookup from the instance, whose class may be a subclass
        # calling ``super().__init__``).
        made = self.owner.__dict__[self.name]
        bind = getattr(type(made), "__get__", None)
        return made if bind is None else bind(made, instance, owner_type or self.owner)


def _make(cls: type) -> None:
    """Make ``cls`` the dataclass ``frozen`` describes, once (other threads wait for it).

    The class itself changes only once dataclasses has made a scratch copy of it: if dataclasses
    refuses the record, or anything stops the making (an interrupt, the recursion limit), the
    class is as it was, and the next use tries again (and gets dataclasses' own error again)."""
    with _MAKING:
        pending = cls.__dict__.get(_PENDING)
        if pending is None:
            return  # made already, by this thread's caller or another thread
        if sys.modules.get(cls.__module__) is None:
            raise _module_gone(cls)
        body = {k: v for k, v in pending.namespace.items() if k not in _OWN_TO_EACH_CLASS}
        scratch = type(cls.__name__, cls.__bases__, {**body, "__qualname__": cls.__qualname__})
        made = _make_dataclass(scratch, owner=cls, body=body)
        for name in pending.deferred:  # in _MADE_BY_DATACLASSES' order: __init__ last
            setattr(cls, name, made[name])
        if not hasattr(cls.__dict__["__init__"], "compile_now"):  # compiled already
            drop_signature_stand_in(cls)
        delattr(cls, _PENDING)


# What a record's instances need, and ``_make_from_body`` gives without dataclasses: the shape
# (equality, hashing, repr) and ``__init__``.
_MADE_FROM_THE_BODY: Final = frozenset({_SHAPE, "__init__"})


def _make_from_body(cls: type) -> None:
    """Give ``cls`` its shape and ``__init__`` from its class body as written, without
    dataclasses; what only dataclasses' tools read (``__dataclass_fields__`` and its
    parameters, ``__match_args__``, the docstring) is left to ``_make``, which the first read
    of one of them runs.

    Why: dataclasses making a record (a scratch copy of the class, every field's checks) costs
    about 0.55 million instructions, and a ``doit`` call with nothing to do makes about 80
    records, some 6% of the call; all but a few are made here, for about 0.2 million each
    (issue 40). It reads the fields as dataclasses
    does, for the records this covers: a record without a dataclass base whose fields are all
    plain (``_fields_of_body``). Any other record is made by ``_make``, so dataclasses still
    refuses what it refuses, with its own error. A test holds every record of the package
    made here to what dataclasses makes of it."""
    with _MAKING:
        pending = cls.__dict__.get(_PENDING)
        if pending is None or _SHAPE not in pending.deferred:
            return  # made already
        fields = _fields_of_body(cls, pending.namespace)
        plan = None if fields is None else plan_of(pending.namespace, cls, fields)
        if fields is None or plan is None:
            # Also for a class that writes its own __init__ (no plan): dataclasses still
            # refuses a field without a default after one with, which it must do here too.
            _make(cls)
            return
        setattr(cls, _SHAPE, _RecordShape(cls, fields))
        if "__init__" in pending.deferred:
            compile_init = partial(_compiled_init, cls, pending.namespace)
            cls.__init__ = uncompiled_init(cls, plan, compile_init)  # type: ignore[misc]
        # Last, so that a making stopped before here is done again, whole.
        pending.deferred = tuple(n for n in pending.deferred if n not in _MADE_FROM_THE_BODY)


def _fields_of_body(cls: type, body: dict[str, Any]) -> list[dataclasses.Field[Any]] | None:
    """The record's fields as dataclasses would make them, read off its class ``body``; None
    for a record this does not cover: a field of a pseudo-field type (``ClassVar``,
    ``InitVar``, ``KW_ONLY``) or that may be one, a keyword-only field, ``__slots__``, a
    mutable default, a ``field()`` without an annotation, an annotation that is not a string
    (a module without ``from __future__ import annotations``), or a module no longer imported.
    """
    module = sys.modules.get(cls.__module__)
    annotations = body.get("__annotations__", {})
    if module is None or "__slots__" in body:
        return None
    namespace = vars(module)
    fields = []
    for name, annotation in annotations.items():
        if not isinstance(annotation, str) or _may_be_pseudo_field(annotation, namespace):
            return None
        default = _class_default(cls, body, name)
        field = None if default is _UNSURE else _field_of(name, annotation, default)
        if field is None:
            return None
        fields.append(field)
    if any(isinstance(v, dataclasses.Field) and k not in annotations for k, v in body.items()):
        return None  # dataclasses' TypeError: a field() without a type
    return fields


def _class_default(cls: type, body: dict[str, Any], name: str) -> object:
    """What dataclasses reads as the field's default: ``getattr`` of the scratch copy ``_make``
    gives it, so the body's attribute of that name, else the bases'; ``_UNSURE`` where that
    ``getattr`` could answer otherwise than the attribute itself (a descriptor other than a
    function, or a name only ``type`` has, such as ``mro``)."""
    if name in body:
        found = body[name]
    else:
        bases = (vars(base) for base in cls.__mro__[1:])
        found = next((own[name] for own in bases if name in own), dataclasses.MISSING)
    if found is dataclasses.MISSING:
        return _UNSURE if hasattr(type(cls), name) else found
    descriptor = hasattr(type(found), "__get__") and not isinstance(found, types.FunctionType)
    return _UNSURE if descriptor else found


# A field's default that only dataclasses' own reading can tell (_class_default).
_UNSURE: Final = object()


def _field_of(name: str, annotation: str, default: object) -> dataclasses.Field[Any] | None:
    if isinstance(default, dataclasses.Field):
        if default.kw_only is True:
            return None
        # A copy (the body's own is dataclasses', which sets its name and type when it makes the
        # record), made by Field itself: field() checks what the body's field() checked.
        field = _new_field(
            default.default,
            default.default_factory,
            default.init,
            default.repr,
            default.hash,
            default.compare,
            None,
            False,  # kw_only: dataclasses' answer for a record that makes none keyword-only
        )
        field.metadata = default.metadata  # the body's own mapping, as dataclasses keeps it
    elif isinstance(default, types.MemberDescriptorType):  # a base's slot
        return None
    else:  # as field(default=default) makes it
        field = _new_field(default, dataclasses.MISSING, True, True, None, True, None, False)
    if field.default.__class__.__hash__ is None:
        return None  # a mutable default, which dataclasses refuses
    field.name = name
    field.type = annotation
    field._field_type = _FIELD_MARK  # type: ignore[attr-defined]  # what dataclasses sets
    return field


# dataclasses.Field's own constructor (default, default_factory, init, repr, hash, compare,
# metadata, kw_only), which typeshed types without the MISSING and None that field() passes it.
_new_field: Callable[..., dataclasses.Field[Any]] = dataclasses.Field
# dataclasses' mark of a real field (3.11 and 3.12, where records are made from their body).
_FIELD_MARK: Final = getattr(dataclasses, "_FIELD", None)


# dataclasses' own reading of a string annotation: an optional module name, then a name. The
# same text as dataclasses' pattern, so re's cache hands back the one it compiled.
_MODULE_AND_NAME: Final = re.compile(r"^(?:\s*(\w+)\s*\.)?\s*(\w+)")


def _may_be_pseudo_field(annotation: str, namespace: dict[str, Any]) -> bool:
    """Whether dataclasses could read ``annotation`` as a ``ClassVar``, an ``InitVar`` or
    ``KW_ONLY`` (it looks the annotation's first name up in the record's module); a ``module.``
    name of ``typing`` or ``dataclasses`` counts as one, whatever follows."""
    module_name, name = _first_names(annotation)
    if module_name:
        return namespace.get(module_name) in (typing, dataclasses)
    value = namespace.get(name)
    return value is not None and (
        value is typing.ClassVar
        or value is dataclasses.InitVar
        or value is dataclasses.KW_ONLY
        or isinstance(value, dataclasses.InitVar)
        or getattr(value, "__origin__", None) is typing.ClassVar
    )


# The module name ("" for none) and the name dataclasses' pattern reads off each annotation's
# text: the same few texts ("str", "int | None") annotate most fields, and a match costs more
# than the rest of the check (issue 40).
_FIRST_NAMES: dict[str, tuple[str, str]] = {}


def _first_names(annotation: str) -> tuple[str, str]:
    found = _FIRST_NAMES.get(annotation)
    if found is None:
        match = _MODULE_AND_NAME.match(annotation)
        found = ("", "") if match is None else (match.group(1) or "", match.group(2))
        _FIRST_NAMES[annotation] = found
    return found


# What Python makes for each class itself: a scratch copy gets its own.
_OWN_TO_EACH_CLASS: Final = frozenset({"__dict__", "__weakref__"})


def _make_dataclass(
    target: type, owner: type, body: dict[str, Any] | None = None
) -> dict[str, object]:
    """Let dataclasses make ``target`` (the record class, or a scratch copy of it) and set its
    shape for ``owner`` (the record class); what dataclasses added, by name. Given the class
    ``body`` as written (a record made on first use), its ``__init__`` is the plain one, and
    dataclasses compiles one only for a call that does not fit or for the signature
    (frozen_init.py)."""
    waits = body is not None and may_wait_to_compile(body)
    undocumented = waits and body is not None and not body.get("__doc__")
    if undocumented:
        # Else dataclasses writes object's signature there, read off its text signature with
        # tokenize: DocOnceCompiled (below) writes the record's own when first read.
        target.__doc__ = "written when first read"
    dataclasses.dataclass(target, init=not waits, repr=False, eq=False)
    # Say what the record is, so that dataclasses (a subclass's @dataclass(frozen=True), say)
    # sees a frozen dataclass with a repr and an equality, as it would have made it.
    params = getattr(target, "__dataclass_params__")  # noqa: B009 (not typed)
    params.init = params.repr = params.eq = params.frozen = True
    fields = dataclasses.fields(target)
    setattr(target, _SHAPE, _RecordShape(owner, fields))
    if waits and body is not None:
        plan = plan_for(body, target, fields)
        compile_init = partial(_compiled_init, owner, body)
        init = compile_init() if plan is None else uncompiled_init(owner, plan, compile_init)
        target.__init__ = init  # type: ignore[misc]
        if undocumented:
            target.__doc__ = DocOnceCompiled(owner, _make)  # type: ignore[assignment]
    return {name: vars(target)[name] for name in _MADE_BY_DATACLASSES if name in vars(target)}


def _compiled_init(owner: type, body: dict[str, Any]) -> Callable[..., None]:
    """The ``__init__`` dataclasses writes for the record ``owner``, made on a scratch copy of
    its class ``body``; dataclasses' TypeError for one it refuses."""
    if sys.modules.get(owner.__module__) is None:
        raise _module_gone(owner)
    scratch = type(owner.__name__, owner.__bases__, {**body, "__qualname__": owner.__qualname__})
    dataclasses.dataclass(scratch, repr=False, eq=False)
    init: Callable[..., None] = vars(scratch)["__init__"]
    return init


def _module_gone(cls: type) -> TypeError:
    # dataclasses reads string annotations ("ClassVar[int]") through the module
    return TypeError(
        f"the record {cls.__qualname__} cannot be made: its module {cls.__module__} is "
        "no longer imported (a script run by runpy?); define it in an imported module"
    )
