"""Regular expressions compiled on first use.

Compiling a pattern costs tens of microseconds to a millisecond (a large Unicode class), and
loading the plugin compiled every module-level pattern of every module on each build, most of
them never used by that build (a page without components, a source without snippets).
:func:`lazy_re` returns an object that compiles its pattern the first time one of its methods
is asked for, then keeps the compiled pattern's methods as its own attributes: later calls go
straight to them, as fast as through the compiled pattern.
"""

from __future__ import annotations

import re
from typing import Any, cast

#: the attributes of ``re.Pattern`` the proxy takes over once compiled
_ATTRS = ("match", "fullmatch", "search", "sub", "subn", "finditer", "findall", "split",
          "scanner", "pattern", "flags", "groups", "groupindex")


class _LazyPattern:
    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        compiled = re.compile(*self._args)
        for attr in _ATTRS:
            self.__dict__[attr] = getattr(compiled, attr)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_re({self._args[0]!r}, {self._args[1]!r})"


def lazy_re(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled when first used.

    It has the methods and attributes of a compiled pattern; it is not one for ``isinstance``
    and cannot be handed to ``re.sub`` & co. (call its methods instead)."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))
