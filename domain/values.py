"""Immutable values: a fast `replace` for the frozen dataclasses that hold game state.

`dataclasses.replace` re-runs `__init__` through a generic keyword path and dominated the
fold's profile (about 40 % of Trickerion fold time, docs/benchmarks.md). State classes are frozen
dataclasses without `__slots__`, so a copy is one `__dict__` update: same fields, same
equality and hash, the original untouched. `fields_dict` is a record's JSON-ready dict, field by
field in their order.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the frozen dataclass `obj` with `changes` applied (fields only, no validation).

    Raises:
        TypeError: a name in `changes` is not a field of `obj`.
    """
    try:
        old = obj.__dict__
    except AttributeError:  # a slots dataclass: the generic path
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    fields = {**old, **changes}
    if len(fields) != len(old):  # a name that is not a field: checked after, not per call
        name = next(n for n in changes if n not in old)
        raise TypeError(f"{type(obj).__name__} has no field {name!r}")
    return with_dict(type(obj), fields)


def with_dict(cls: type[T], fields: dict[str, Any]) -> T:
    """A new `cls` instance (no `__init__`) whose `__dict__` is `fields` itself.

    Why not `new.__dict__.update(fields)`: reading `__dict__` gives the instance a dict that
    shares its class's key table, and CPython 3.11 does not specialise attribute reads on such
    an instance (about 350 instructions a read instead of 100, docs/profiles/fold-event-cost.md);
    a dict of its own keeps them fast.
    """
    new = _new(cls)
    _setattr(new, "__dict__", fields)
    return new


def fields_dict(obj: Any, /, **rendered: Any) -> dict[str, Any]:
    """The fields of dataclass `obj` by name, in declaration order, each value as it is
    (shallow, unlike `dataclasses.asdict`) except the fields named in `rendered`, which take
    the value given there (a nested record's own `to_dict`, say).

    Raises:
        TypeError: `obj` is not a dataclass instance.
    """
    names = _FIELD_NAMES.get(type(obj))
    if names is None:  # once per class: `dataclasses.fields` filters them anew each call
        names = _FIELD_NAMES[type(obj)] = tuple(f.name for f in dataclasses.fields(obj))
    return {name: rendered[name] if name in rendered else getattr(obj, name) for name in names}


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


_new = object.__new__
_setattr = object.__setattr__  # frozen dataclasses refuse `new.__dict__ = ...`
