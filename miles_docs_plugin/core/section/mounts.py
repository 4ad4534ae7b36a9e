"""Where a section may go: the one rule for collisions between a mount and host files.

A section owns the URL space of its mount: ``<mount>/`` and everything below it. A host file
in that space would be replaced by an injected one (MkDocs serves both at the same URL), and a
host page named after the mount (``<mount>.md``, ``<mount>.rst``) has the section index's URL
with directory URLs (MkDocs' default, Sphinx's ``dirhtml``). Every adapter and ``miles-docs
check`` use :func:`mount_collisions`, and a collision stops the build before anything is
written.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..config import Config, SourceConfig

#: Suffixes of host pages that engines turn into ``<stem>/`` URLs.
HOST_PAGE_SUFFIXES = (".md", ".mdx", ".markdown", ".rst", ".ipynb", ".txt")


def mount_collisions(mount: str, host_files: Iterable[str]) -> list[str]:
    """Host files (docs-relative POSIX paths) that collide with a section mounted at ``mount``."""
    prefix = mount + "/"
    clash = []
    for path in host_files:
        stem, ext = posixpath.splitext(path)
        if path == mount or path.startswith(prefix) or (
                stem == mount and ext.lower() in HOST_PAGE_SUFFIXES):
            clash.append(path)
    return sorted(clash)


def collision_error(source: str, mount: str, clash: list[str], where: str,
                    docs_label: str = "") -> ConfigError:
    """The one message for a collision (the host's files are named, nothing was written)."""
    shown = ", ".join(posixpath.join(docs_label, c) if docs_label else c for c in clash[:3])
    more = f" and {len(clash) - 3} more" if len(clash) > 3 else ""
    return ConfigError(
        f"source {source!r} mounts at {mount!r}, but the host already has {shown}{more}. "
        "Nothing was overwritten",
        where=where, hint="set `mount:` to a free folder or move those host pages")


def collisions(config: Config, host_files: Iterable[str],
               docs_label: str = "") -> Iterator[tuple[SourceConfig, ConfigError]]:
    """Each source of ``config`` that collides with ``host_files``, with its error."""
    files = list(host_files)
    for source in config.sources:
        clash = mount_collisions(source.mount, files)
        if clash:
            yield source, collision_error(source.name, source.mount, clash,
                                          str(config.config_file or "config"), docs_label)


def check_mounts(config: Config, host_files: Iterable[str], docs_label: str = "") -> None:
    """Stop (:class:`ConfigError`) at the first source that collides with ``host_files``."""
    for _source, error in collisions(config, host_files, docs_label):
        raise error
