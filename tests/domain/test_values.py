"""`domain.values.replace` (the fold's copy of a frozen state), `fields_dict` (a record's
JSON-ready dict) and `Memo.latest` (the Penumbra category VP's kept tableau): the fast paths
keep the plain semantics."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

from domain.memo import Memo
from domain.values import fields_dict, replace, with_dict


@dataclass(frozen=True)
class Book:
    fame: int
    coins: int = 0
    tricks: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Slotted:
    a: int
    b: int = 0


def test_replace_copies_with_changes_and_leaves_the_original() -> None:
    book = Book(3, 2, ("T1",))
    new = replace(book, coins=5)
    assert new == Book(3, 5, ("T1",)) == dataclasses.replace(book, coins=5)
    assert book == Book(3, 2, ("T1",))
    assert new is not book
    assert type(new) is Book
    assert hash(new) == hash(Book(3, 5, ("T1",)))


def test_replace_gives_the_copy_a_dict_of_its_own_in_field_order() -> None:
    book = Book(3, 2, ("T1",))
    new = replace(book, coins=5)
    assert new.__dict__ is not book.__dict__
    assert list(new.__dict__) == ["fame", "coins", "tricks"]
    assert repr(new) == repr(dataclasses.replace(book, coins=5))


def test_with_dict_makes_an_instance_around_the_given_dict() -> None:
    fields = {"fame": 1, "coins": 2, "tricks": ()}
    book = with_dict(Book, fields)
    assert book == Book(1, 2)
    assert type(book) is Book
    assert book.__dict__ is fields
    with pytest.raises(dataclasses.FrozenInstanceError):
        book.fame = 4  # type: ignore[misc]


def test_replace_refuses_a_name_that_is_not_a_field() -> None:
    book = Book(1)
    with pytest.raises(TypeError, match="Book has no field 'fmae'"):
        replace(book, fame=2, fmae=3)
    assert book == Book(1)


def test_replace_of_a_slots_dataclass_takes_the_generic_path() -> None:
    assert replace(Slotted(1), b=2) == Slotted(1, 2)
    with pytest.raises(TypeError):
        replace(Slotted(1), c=2)


def test_fields_dict_keeps_field_order_and_values_and_takes_rendered_ones() -> None:
    book = Book(3, 2, ("T1",))
    assert list(fields_dict(book)) == ["fame", "coins", "tricks"]
    assert fields_dict(book)["tricks"] is book.tricks  # shallow, unlike dataclasses.asdict
    assert fields_dict(Slotted(1, 2), a="one") == {"a": "one", "b": 2}
    with pytest.raises(TypeError):
        fields_dict(object())


def test_memo_latest_is_the_last_put_whatever_its_inputs() -> None:
    memo, a, b = Memo(), object(), object()
    assert memo.latest("k") is None
    memo.put("k", (a,), 1)
    memo.put("k", (b,), 2)
    assert memo.latest("k") == ((b,), 2)
    assert memo.get("k", (b,), lambda: 3) == 2
    assert memo.get("k", (a,), lambda: 3) == 3
