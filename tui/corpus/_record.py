"""`Record`: a base for small immutable value classes, cheap to define at import time.

`@dataclass(frozen=True, slots=True)` costs about 0.6 ms per class when its
module is imported (it generates and execs methods, then rebuilds the class
for slots), and the corpus model is imported before the app's first frame. A
`Record` subclass lists its fields in `__slots__` and sets them in a plain
`__init__`; it then behaves as that dataclass did: equality and hash over the
fields (same class only), a `Name(field=value, ...)` repr, assignment refused,
and pickling by its fields.
"""

from __future__ import annotations

from typing import Any, NoReturn


class Record:
    """Immutable fields named in the subclass's `__slots__`, in `__init__` order."""

    __slots__ = ()
    # The field names in order (set by each subclass, as a dataclass sets it).
    __match_args__: tuple[str, ...] = ()

    def _fields(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self.__match_args__])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            assert isinstance(other, Record)
            return self._fields() == other._fields()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        body = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{type(self).__qualname__}({body})"

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[type[Record], tuple[Any, ...]]:
        # Slots plus a refusing __setattr__ defeat pickle's default state restore.
        return (type(self), self._fields())
