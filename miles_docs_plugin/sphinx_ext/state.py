"""What the later events need from ``builder-inited``, kept on the environment (so the forked
readers of a parallel build have it too) for the current build only: it is not pickled with the
environment, since every build works it out again."""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from ..core.config import Config
from ..core.records import Record


class PageInfo(Record):
    """What the extension keeps per injected page for the later events."""

    __slots__ = _fields = ("title", "provenance", "description", "banner_html", "pin_links")
    title: str | None
    provenance: dict[str, Any]
    description: str | None
    banner_html: str | None
    pin_links: bool  #: the page has repository links to fill in at write time

    def __init__(self, title: str | None, provenance: dict[str, Any], description: str | None,
                 banner_html: str | None = None, pin_links: bool = False) -> None:
        self.title = title
        self.provenance = provenance
        self.description = description
        self.banner_html = banner_html
        self.pin_links = pin_links


class State(Record):
    """What the later events need, kept on the environment for the forked readers."""

    __slots__ = _fields = ("pages", "roots", "html_assets", "written", "permalinks", "pins",
                           "orphans", "restamp", "rewrite", "placed_anew")
    pages: dict[str, PageInfo]  #: by docname
    roots: list[tuple[str, str, str]]  #: (title, index, placement)
    html_assets: list[tuple[str, str]]  #: (src abs, dest rel)
    written: list[str]
    #: per source: (web_url, commit or ref) for permalinks resolved at write time
    permalinks: dict[str, tuple[str | None, str]]
    pins: dict[str, str | None]
    #: injected pages the section's nav does not list (no toctree holds them)
    orphans: set[str]
    #: per source whose pin moved: the pin the pages in the output folder name (see restamp)
    restamp: dict[str, str]
    #: pages whose own text names that old pin: Sphinx writes them again, they are not restamped
    rewrite: set[str]
    #: the sections placed in the root toctree are not those of the last build
    placed_anew: bool

    def __init__(self) -> None:
        self.pages = {}
        self.roots = []
        self.html_assets = []
        self.written = []
        self.permalinks = {}
        self.pins = {}
        self.orphans = set()
        self.restamp = {}
        self.rewrite = set()
        self.placed_anew = False

    # Every build makes a new one in builder-inited: pickled into Sphinx's environment.pickle,
    # it would only make every build read and write ~0.8 MB more (1,000 pages) for nothing.
    def __getstate__(self) -> dict[str, Any]:  # type: ignore[override]
        return {}

    def __setstate__(self, _data: dict[str, Any]) -> None:  # type: ignore[override]
        self.__init__()  # type: ignore[misc]


class BuildOnly(dict[str, Any]):
    """A dict kept on the environment for this build only: it pickles as an empty one (every
    build fills it again in builder-inited; the forked readers of a parallel build share the
    parent's memory, not a pickle)."""

    def __reduce__(self) -> tuple[type[BuildOnly], tuple[()]]:
        return BuildOnly, ()


def get_state(app: Sphinx) -> State:
    state = getattr(app.env, "miles_docs_state", None)
    if not isinstance(state, State):
        state = State()
        app.env.miles_docs_state = state  # type: ignore[attr-defined]
    return state


def core_config(app: Sphinx) -> Config:
    config: Config | None = getattr(app, "_miles_docs_config", None)
    if config is None:
        raise ExtensionError("[miles-docs] the config was not loaded (config-inited did not run)")
    return config
