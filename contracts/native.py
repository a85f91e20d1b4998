"""The event union's JSON validator with the envelope's Python checks done natively.

`EnvelopeChecks` guards `schema_version` (a JSON integer) and the timestamps (RFC 3339 text)
with Python before-validators: three Python calls an event, on every decode at the door and
again on every stored line read (docs/profiles/decode-profiles.md). For JSON input each stands
for a native check: a whole number is a strict int (`true`, `1.0`, `"1"` refused) equal to the
one version the `Literal` pins; a timestamp is a strict datetime, which from JSON takes a
string only and parses it exactly as the lax one does. So `native_validator(schema)` builds,
from the published union's core schema, a validator that accepts a subset of what the
published one accepts and returns the very same models (the same classes: only the leaves
change). Whatever it refuses is handed back to the published validator, which decides and
words the refusal as before; the published models, their JSON Schemas and errors are
unchanged (docs/decisions/0019-hostile-input-at-every-door.md).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic_core import SchemaValidator

_WHOLE_NUMBER = "EnvelopeChecks._whole_number"
_RFC3339_TEXT = "EnvelopeChecks._rfc3339_text"
_COMPLETE = "__pydantic_complete__"
_ABSENT = object()


def _checked_by(node: dict[str, Any]) -> str:
    """The qualified name of a before-validator's function (empty for any other node)."""
    if node.get("type") != "function-before":
        return ""
    function = node["function"]["function"]
    return str(getattr(getattr(function, "__func__", function), "__qualname__", ""))


def _strict_datetimes(node: Any) -> Any:
    """`node` with every datetime leaf strict (under a `nullable` for `recorded_at`)."""
    if isinstance(node, dict):
        out = {k: _strict_datetimes(v) for k, v in node.items()}
        return {**out, "strict": True} if out.get("type") == "datetime" else out
    return node


def _strict_version(node: dict[str, Any]) -> dict[str, Any]:
    """The pinned `Literal[v]` of `schema_version` as a strict int equal to `v`.

    Raises:
        ValueError: the literal pins something else than one whole number.
    """
    expected = node.get("expected") if node.get("type") == "literal" else None
    if not expected or len(expected) != 1 or type(expected[0]) is not int:
        raise ValueError(f"schema_version: expected a Literal of one int, got {node!r}")
    return {"type": "int", "strict": True, "ge": expected[0], "le": expected[0]}


def native_schema(node: Any, rebuilt: list[type] | None = None) -> Any:
    """A copy of core schema `node` with the envelope's before-validators replaced by the
    native checks they stand for (module docstring); a subtree without one is the very
    object given. The class of each `model` node changed is appended to `rebuilt`."""
    if isinstance(node, list):
        items = [native_schema(v, rebuilt) for v in node]
        return node if all(a is b for a, b in zip(items, node, strict=True)) else items
    if not isinstance(node, dict):
        return node
    checked = _checked_by(node)
    if checked == _WHOLE_NUMBER:
        return _strict_version(node["schema"])
    if checked == _RFC3339_TEXT:
        return _strict_datetimes(node["schema"])
    out = {k: native_schema(v, rebuilt) for k, v in node.items()}
    if all(out[k] is v for k, v in node.items()):
        return node
    if out.get("type") == "model" and rebuilt is not None:
        rebuilt.append(out["cls"])
    return out


_MARKS_LOCK = threading.Lock()
_MARKED: dict[type, tuple[int, object]] = {}
"""Class -> (builds marking it now, its own `__pydantic_complete__` before the first)."""


@contextmanager
def _not_prebuilt(classes: list[type]) -> Iterator[None]:
    """pydantic-core reuses a complete model class's own validator for a `model` node
    (`__pydantic_complete__` in its `__dict__`), which would ignore the changed schema: the
    classes read as incomplete while the validator is built, then as before. Builds in
    several threads overlap: the last one to end restores what the first one found."""
    unique = list(dict.fromkeys(classes))
    with _MARKS_LOCK:
        for cls in unique:
            count, before = _MARKED.get(cls, (0, cls.__dict__.get(_COMPLETE, _ABSENT)))
            _MARKED[cls] = (count + 1, before)
            setattr(cls, _COMPLETE, False)
    try:
        yield
    finally:
        with _MARKS_LOCK:
            for cls in unique:
                count, before = _MARKED.pop(cls)
                if count > 1:
                    _MARKED[cls] = (count - 1, before)
                elif before is _ABSENT:
                    delattr(cls, _COMPLETE)
                else:
                    setattr(cls, _COMPLETE, before)


def native_validator(schema: Any) -> SchemaValidator:
    """The JSON validator of core schema `schema` with the envelope's checks native.

    Use it for JSON text only (`validate_json`): a strict datetime refuses a Python string.
    """
    rebuilt: list[type] = []
    native = native_schema(schema, rebuilt)
    with _not_prebuilt(rebuilt):
        return SchemaValidator(native)
