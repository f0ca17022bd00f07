"""The one empty array, and the one empty ``extra``, that decoded models share.

A real catalog item leaves out, or sends as ``[]``, a score of the arrays its model declares (a
course without prerequisites, sponsors, staff...). A fresh ``[]`` for each costs 72 bytes and one
more object for the garbage collector to walk, per field and per item: a quarter of what a held
item weighs. So such a field holds this one shared list, which is empty and stays empty: whatever
would add to it raises ``TypeError``, since adding to it would add to every model. To change such
a field, assign it a list of its own (``course.sponsors = [...]``). It is a ``list``, equal to
``[]``, and ``to_dict`` writes the field as the server did: left out, or ``[]``.

Likewise, a decoded model whose object holds no field the spec lacks (most of them) shares one
empty, read-only ``extra`` dict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn, SupportsIndex

__all__ = ["EMPTY_ARRAY", "EMPTY_EXTRA", "EmptyArray", "EmptyExtra"]


class EmptyArray(list[Any]):
    """An empty list that refuses to grow (see the module's docstring); copies of it are itself."""

    __slots__ = ()

    def _refuse(self) -> NoReturn:
        raise TypeError(
            "this empty array is shared by every decoded model that has one: "
            "assign the field a list of its own to change it"
        )

    def append(self, item: Any) -> None:
        self._refuse()

    def extend(self, items: Iterable[Any]) -> None:
        self._refuse()

    def insert(self, index: SupportsIndex, item: Any) -> None:
        self._refuse()

    def __setitem__(self, index: Any, value: Any) -> None:
        self._refuse()

    def __iadd__(self, items: Iterable[Any]) -> NoReturn:  # type: ignore[misc]
        self._refuse()

    def __copy__(self) -> EmptyArray:
        return self

    def __deepcopy__(self, memo: Any) -> EmptyArray:
        return self

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (_empty_array, ())


def _empty_array() -> EmptyArray:
    """What pickle calls to rebuild the shared array (the one instance, not a copy)."""
    return EMPTY_ARRAY


EMPTY_ARRAY = EmptyArray()


class EmptyExtra(dict[str, Any]):
    """An empty dict that refuses to grow: the ``extra`` of every decoded model that has nothing extra."""

    __slots__ = ()

    def _refuse(self) -> NoReturn:
        raise TypeError(
            "this empty extra is shared by every decoded model that has one: "
            "assign the model's extra a dict of its own to change it"
        )

    def __setitem__(self, key: str, value: Any) -> None:
        self._refuse()

    def update(self, *others: Any, **fields: Any) -> None:
        self._refuse()

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._refuse()

    def __ior__(self, other: Mapping[str, Any]) -> NoReturn:  # type: ignore[misc, override]
        self._refuse()

    def __copy__(self) -> EmptyExtra:
        return self

    def __deepcopy__(self, memo: Any) -> EmptyExtra:
        return self

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (_empty_extra, ())


def _empty_extra() -> EmptyExtra:
    return EMPTY_EXTRA


EMPTY_EXTRA = EmptyExtra()
