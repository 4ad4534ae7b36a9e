"""What a build reads from its environment: variables, and the installed distributions'
versions (which caches and memo keys depend on).

Nothing is read at import time: a bad value is a one-line :class:`ConfigError` naming the
variable, raised by the command or build that needs it, never a traceback on import.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping

from .errors import ConfigError

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600}


def env_flag(name: str, env: Mapping[str, str] | None = None) -> bool:
    """A yes/no variable: ``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off``/unset."""
    value = (os.environ if env is None else env).get(name, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"{name}={value!r} is neither on nor off", where="environment",
                      hint=f"set {name}=1 to turn it on, or unset it")


def on_ci(env: Mapping[str, str]) -> bool:
    """Is this a CI job? GitHub Actions, GitLab CI and most others set ``CI`` (``true``)."""
    return env.get("CI", "").strip().lower() not in _FALSE


def env_seconds(name: str, default: float, env: Mapping[str, str] | None = None) -> float:
    """A duration: seconds (``600``), or with a unit (``90s``, ``10m``, ``1h``)."""
    raw = (os.environ if env is None else env).get(name, "").strip()
    if not raw:
        return default
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([smh]?)", raw.lower())
    if not m or float(m.group(1)) <= 0:
        raise ConfigError(f"{name}={raw!r} is not a duration", where="environment",
                          hint=f"write seconds or a unit, e.g. {name}=600 or {name}=10m")
    return float(m.group(1)) * _UNITS[m.group(2)]


def distribution_version(name: str) -> str:
    """The installed version of distribution ``name`` ("?" when it is not installed).

    Read from the ``Version:`` line of its metadata's header: ``importlib.metadata.version``
    parses the whole file (markdown-it-py's holds its README) as an e-mail message.
    """
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution(name)
    except PackageNotFoundError:
        return "?"
    header = (dist.read_text("METADATA") or dist.read_text("PKG-INFO") or "").partition("\n\n")[0]
    for line in header.splitlines():
        if line.startswith("Version:"):
            return line[len("Version:"):].strip()
    return str(dist.version)


#: The name of this package's own folder in the user's cache and state folders.
APP_FOLDER = "miles-docs"
#: Per kind of folder: its XDG variable, and where it is under the home folder when unset.
_XDG = {"cache": ("XDG_CACHE_HOME", ".cache"), "state": ("XDG_STATE_HOME", ".local/state")}


def user_folder(kind: str) -> str:
    """The user's ``"cache"`` or ``"state"`` folder for this package: platformdirs'
    ``user_cache_dir`` / ``user_state_dir`` (``"miles-docs"``, no author).

    On Linux that is the XDG variable when it holds an absolute path, else the folder under
    ``$HOME``: worked out here, as importing platformdirs costs 2-3 ms on every build. Other
    platforms (and a home that is not an absolute path) ask platformdirs.
    """
    variable, under_home = _XDG[kind]
    if sys.platform == "linux" and "ANDROID_DATA" not in os.environ:  # platformdirs' Unix
        base = os.environ.get(variable, "")
        home = os.environ.get("HOME", "")
        if os.path.isabs(base):  # noqa: PTH117 (str in, str out: no pathlib)
            return os.path.join(base, APP_FOLDER)  # noqa: PTH118
        if os.path.isabs(home):  # noqa: PTH117
            return os.path.join(home, under_home, APP_FOLDER)  # noqa: PTH118
    import platformdirs

    if kind == "cache":
        return platformdirs.user_cache_dir(APP_FOLDER, appauthor=False)
    return platformdirs.user_state_dir(APP_FOLDER, appauthor=False)
