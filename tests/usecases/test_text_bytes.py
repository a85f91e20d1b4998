"""`sizedcache.text_bytes` counts every string once per occurrence, whatever the nesting, and
nothing else (str enum members are shared singletons; UUIDs, numbers, datetimes hold no text)."""

from __future__ import annotations

import enum
import sys
from datetime import UTC, datetime
from typing import NamedTuple
from uuid import uuid4

from pydantic import BaseModel

from services.runtime.sizedcache import text_bytes


class Colour(enum.StrEnum):
    RED = "red"


class Row(NamedTuple):
    name: str
    colour: Colour
    amount: int


class Inner(BaseModel):
    note: str
    tags: list[str]


class Outer(BaseModel):
    id: object
    when: datetime
    inner: Inner
    rows: tuple[Row, ...]
    extra: dict[str, object]


def test_counts_each_string_of_nested_models_tuples_and_dicts() -> None:
    texts = ["ноты", "😀😀", "a", "b", "row", "k", "v", "set"]
    value = Outer(
        id=uuid4(),
        when=datetime.now(UTC),
        inner=Inner(note=texts[0], tags=[texts[1], texts[2]]),
        rows=(Row(texts[4], Colour.RED, 3),),
        extra={texts[5]: [texts[6], frozenset({texts[7]}), 1.5, None], "n": {"b": texts[3]}},
    )
    keys = ["n", "b"]
    assert text_bytes(value) == sum(map(sys.getsizeof, texts + keys))
    # again, with the types found empty (Colour, float) now skipped where they are met
    assert text_bytes(value) == sum(map(sys.getsizeof, texts + keys))


def test_counts_nothing_but_strings() -> None:
    assert text_bytes([Colour.RED, 1, 2.5, True, None, uuid4(), b"bytes"]) == 0
    assert text_bytes("x" * 500) == sys.getsizeof("x" * 500)
