"""Which engine an entry point needs, and the message when it is not installed.

The core needs neither engine; ``pip install miles-docs-plugin[mkdocs]`` or ``[sphinx]`` adds
one. The adapters import their engine at module level, so a missing engine would otherwise
surface as a bare ``No module named 'sphinx'`` from deep inside a build tool.
"""

from __future__ import annotations

import importlib.util

#: engine -> (the modules it needs, the extra that installs them)
ENGINES: dict[str, tuple[tuple[str, ...], str]] = {
    "mkdocs": (("mkdocs",), "mkdocs"),
    "sphinx": (("sphinx", "docutils", "myst_parser"), "sphinx"),
}


class EngineMissing(ModuleNotFoundError):
    """An entry point's engine is not installed (a ``ModuleNotFoundError``, as Python's own)."""


def missing_modules(engine: str) -> list[str]:
    modules, _extra = ENGINES[engine]
    return [m for m in modules if importlib.util.find_spec(m) is None]


def require(engine: str, what: str) -> None:
    """Raise :class:`EngineMissing` naming the extra to install when ``engine`` is missing."""
    missing = missing_modules(engine)
    if missing:
        _modules, extra = ENGINES[engine]
        raise EngineMissing(
            f"miles-docs: {what} needs {', '.join(missing)}, which is not installed: "
            f"pip install 'miles-docs-plugin[{extra}]'", name=missing[0])
