"""Plain value classes without ``@dataclass``.

Every build imports the core's value classes. ``@dataclass`` writes and compiles the source
of ``__init__``, ``__repr__``, ``__eq__`` (and ``__hash__``, ``__setattr__`` when frozen) of
each class at import time: for the few dozen classes a build loads, that was a third of
loading the plugin. These classes write ``__slots__`` and ``__init__`` by hand (compiled once,
into the byte code cache) and take equality, ``repr``, hashing and immutability from
:class:`Record` / :class:`FrozenRecord`, which compare and print the fields listed in
``_fields`` as a data class did (``repr`` skips ``_norepr``, equality and hashing skip
``_nocompare``). :func:`replace` is ``dataclasses.replace`` for them.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

if TYPE_CHECKING:  # mypy then checks that frozen fields are never assigned, as for a data class
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_: Any) -> Any:
        return lambda cls: cls

R = TypeVar("R", bound="Record")


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a frozen record (as ``dataclasses.FrozenInstanceError``)."""


class Record:
    """Fields in ``__slots__``; equality and ``repr`` by the fields, like a data class."""

    __slots__ = ()
    #: the fields, in ``__init__`` order
    _fields: ClassVar[tuple[str, ...]] = ()
    #: fields left out of ``repr``
    _norepr: ClassVar[frozenset[str]] = frozenset()
    #: fields left out of equality and hashing
    _nocompare: ClassVar[frozenset[str]] = frozenset()

    def _key(self) -> tuple[Any, ...]:
        """The compared fields, as a tuple (through a getter made on first use per class)."""
        getter = _KEYS.get(type(self)) or _key_getter(type(self))
        return getter(self)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()

    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # mutable: unhashable

    def __repr__(self) -> str:
        skip = self._norepr
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields if f not in skip)
        return f"{type(self).__qualname__}({inner})"

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f) for f in self._fields)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self._fields, state, strict=True):
            object.__setattr__(self, name, value)


@dataclass_transform(frozen_default=True)
class FrozenRecord(Record):
    """A :class:`Record` whose fields cannot be assigned after ``__init__``; hashable."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._key())

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


#: per class, what gives an instance's compared fields as a tuple (``attrgetter``: one C call)
_KEYS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def _key_getter(cls: type[Record]) -> Callable[[Any], tuple[Any, ...]]:
    compared = [f for f in cls._fields if f not in cls._nocompare]
    getter: Callable[[Any], tuple[Any, ...]]
    if len(compared) == 1:
        one = attrgetter(compared[0])
        getter = lambda obj: (one(obj),)  # noqa: E731
    elif compared:
        getter = attrgetter(*compared)
    else:
        getter = lambda obj: ()  # noqa: E731
    _KEYS[cls] = getter
    return getter


def replace(obj: R, /, **changes: Any) -> R:
    """A copy of ``obj`` with ``changes``, made by its ``__init__`` (``dataclasses.replace``)."""
    unknown = set(changes) - set(obj._fields)
    if unknown:
        raise TypeError(f"{type(obj).__qualname__} has no field {sorted(unknown)[0]!r}")
    values = {f: changes[f] if f in changes else getattr(obj, f) for f in obj._fields}
    return type(obj)(**values)
