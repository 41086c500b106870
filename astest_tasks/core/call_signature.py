"""``CallSignature``: the signature of calling an object, worked out once per class.

doit asks ``inspect.signature`` of every ``uptodate`` callable of every task on every call, to see
whether it takes ``task`` and ``values`` (201 times on the 20-spec bench with nothing to do). For
an object with ``__call__``, inspect builds that signature from the method each time, about 10 µs;
an object's ``__signature__``, when it has one, is returned as it is.
"""

from __future__ import annotations

import inspect
import types


class CallSignature:
    """``__signature__ = CallSignature()`` in a class with ``__call__``: an instance's signature
    is that of calling it (without ``self``), built once per class. The class's own signature
    (what making an instance takes) is left to inspect: read on the class, the attribute is
    missing."""

    def __init__(self) -> None:
        self._of_class: dict[type, inspect.Signature] = {}

    def __get__(self, instance: object, owner: type | None = None) -> inspect.Signature:
        if instance is None:
            raise AttributeError("__signature__")
        cls = type(instance)
        signature = self._of_class.get(cls)
        if signature is None:
            # inspect's own answer for the bound method, as it gives for the instance
            bound = types.MethodType(cls.__call__, instance)
            signature = self._of_class[cls] = inspect.signature(bound)
        return signature
