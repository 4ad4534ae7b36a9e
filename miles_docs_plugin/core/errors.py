"""Errors and diagnostics.

An *error* stops the build: bad input that the user must fix. It carries one message that names
the file (and the key or line) and says what to do. Adapters turn it into the engine's own error
type (``PluginError`` for MkDocs, ``ExtensionError`` for Sphinx) or a one-line CLI message.

A *diagnostic* is a finding in upstream content (an unresolved link, an unknown component). It
never stops the pipeline by itself; adapters log it as a warning that the engine's strict mode
turns into a failure.
"""

from __future__ import annotations

import enum

from .records import FrozenRecord


class MilesDocsError(Exception):
    """Bad input: the build cannot go on. ``str(error)`` is the whole message for the user."""

    def __init__(self, message: str, *, where: str | None = None, hint: str | None = None) -> None:
        self.message = message
        self.where = where
        self.hint = hint
        super().__init__(self.format())

    def format(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        if self.hint:
            text = f"{text} ({self.hint})" if not text.endswith(".") else f"{text} {self.hint}"
        return text


class ConfigError(MilesDocsError):
    """The config file (or inline options) is wrong."""


class LockError(MilesDocsError):
    """The lock file is missing, malformed, or does not match the config."""


class FetchError(MilesDocsError):
    """A source could not be fetched or verified."""


class ContentError(MilesDocsError):
    """Upstream content that cannot be used at all (e.g. the docs folder is missing)."""


class Severity(enum.Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class Diagnostic(FrozenRecord):
    """A finding in upstream content, located at ``path:line`` of the upstream repository."""

    __slots__ = _fields = ("source", "path", "line", "code", "message", "severity")
    source: str  #: name of the source
    path: str  #: repository-relative path of the upstream file (``docs/x.md``)
    line: int | None  #: 1-based line, when the finding has one
    code: str  #: short machine-readable kind, e.g. ``link``, ``anchor``, ``component``
    message: str
    severity: Severity

    def __init__(self, source: str, path: str, line: int | None, code: str, message: str,
                 severity: Severity = Severity.WARNING) -> None:
        _set = object.__setattr__
        _set(self, "source", source)
        _set(self, "path", path)
        _set(self, "line", line)
        _set(self, "code", code)
        _set(self, "message", message)
        _set(self, "severity", severity)

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    def format(self) -> str:
        return f"[{self.source}] {self.location}: {self.message}"

    def as_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "path": self.path,
            "line": self.line,
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
        }
