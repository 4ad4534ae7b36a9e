"""MkDocs' syntax for injected pages: Python-Markdown's slugs and URLs, code fence titles,
the components as admonitions, tabs and Material's grid cards, the Markdown extensions they
need, and Mintlify front matter made safe for MkDocs themes."""

from __future__ import annotations

import html
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File

from ..core.engine import Engine
from ..core.transform.anchors import PageSlugger
from ..core.transform.blocks import (
    CALLOUTS,
    GROUPS,
    Component,
    card_body,
    card_head,
    code_group_parts,
    framed_image,
    step,
)
from ..core.transform.mdx import FenceMeta


class MkDocsEngine(Engine):
    name = "mkdocs"
    slugify: Callable[..., str]  #: set in __init__, from the engine's own settings

    def __init__(self, config: MkDocsConfig, host_pages: set[str]) -> None:
        super().__init__(host_pages)
        self.use_directory_urls = bool(config.use_directory_urls)
        exts = set(config.markdown_extensions)
        self.features = frozenset(
            name for name, ext in (("admonition", "admonition"), ("details", "pymdownx.details"),
                                   ("tabbed", "pymdownx.tabbed"), ("attr_list", "attr_list"),
                                   ("superfences", "pymdownx.superfences"),
                                   ("md_in_html", "md_in_html"))
            if ext in exts) | ({"mkdocstrings"} if "mkdocstrings" in config.plugins else set())
        toc = config.mdx_configs.get("toc", {})
        slugify = toc.get("slugify")
        separator = toc.get("separator", "-")
        if slugify is None:
            from markdown.extensions.toc import slugify as default_slugify

            slugify = default_slugify
        self.slugify = slugify
        self._separator = separator

    def page_url(self, doc_path: str) -> str:
        return str(File(doc_path, src_dir=None, dest_dir="",
                        use_directory_urls=self.use_directory_urls).url)

    def page_slugger(self) -> PageSlugger:
        from markdown.extensions.toc import unique

        used: set[str] = set()
        slugify, sep = self.slugify, self._separator

        def make(text: str) -> str:
            return str(unique(slugify(text, sep), used))

        return make

    def code_fence(self, indent: str, marker: str, meta: FenceMeta) -> list[str]:
        if meta.title and "superfences" in self.features:
            title = meta.title.replace('"', "'")
            return [f'{indent}{marker}{meta.lang or "text"} title="{title}"']
        return [f"{indent}{marker}{meta.lang}"]

    def block(self, c: Component) -> list[str]:
        ind = c.indent
        title = c.title.replace('"', "'")
        quoted = f' "{title}"' if title else ""
        kind = CALLOUTS.get(c.name)
        if kind and "admonition" in self.features:
            kind = {"caution": "warning"}.get(kind, kind)
            return c.wrap([f"{ind}!!! {kind}{quoted}"], c.indented("    "), [""])
        if c.name in ("Accordion", "Expandable") and self.features & {"details", "admonition"}:
            marker = "???" if "details" in self.features else "!!!"
            return c.wrap([f'{ind}{marker} note "{title or c.name}"'], c.indented("    "), [""])
        if c.name == "Tab" and "tabbed" in self.features:
            return c.wrap([f'{ind}=== "{title or "Tab"}"'], c.indented("    "), [""])
        if c.name == "CodeGroup" and "tabbed" in self.features:
            lines: list[str] = []
            for part_title, fence in code_group_parts(c.inner()):
                if lines and lines[-1] == "":
                    lines.pop()
                lines.append(f'{ind}=== "{part_title}"')
                lines.extend(f"{ind}    {x[len(ind):] if x.startswith(ind) else x}" if x.strip()
                             else "" for x in fence)
                lines.append("")
            return c.wrap([], lines, [""]) if lines else super().block(c)
        if c.name == "Step":
            return step(c, "    ")
        image = framed_image(c) if c.name == "Frame" else None
        if image and "md_in_html" in self.features:
            caption = html.escape(" ".join(c.attrs["caption"].split()))
            body = [line.strip() for line in c.inner() if line.strip()]
            return c.wrap([f'{ind}<figure markdown="span">'],
                          [f"{ind}  {body[0]}", f"{ind}  <figcaption>{caption}</figcaption>"],
                          [f"{ind}</figure>"])
        if "md_in_html" in self.features:
            # Material's grid cards: a list of cards in <div class="grid cards" markdown>
            if c.name in GROUPS:
                return c.wrap([f'{ind}<div class="grid cards" markdown>', ""], c.inner(),
                              ["", f"{ind}</div>"])
            if c.name in ("Card", "Tile") and c.parent in GROUPS:
                body = [f"{ind}    {x[len(ind):] if x.startswith(ind) else x.lstrip()}"
                        if x.strip() else "" for x in card_body(c)]
                head = card_head(c) or "&nbsp;"
                return c.wrap([f"{ind}-   {head}", ""], body, [""])
        return super().block(c)


def _theme_icon(name: str) -> str | None:
    """Material's name for a Mintlify (Font Awesome) icon, if the theme ships it."""
    import importlib.util

    spec = importlib.util.find_spec("material")
    if spec is None or not spec.submodule_search_locations or not name.replace("-", "").isalnum():
        return None
    icons = Path(next(iter(spec.submodule_search_locations))) / "templates" / ".icons"
    for style in ("solid", "regular", "brands"):
        if (icons / "fontawesome" / style / f"{name}.svg").is_file():
            return f"fontawesome/{style}/{name}"
    return None


def mintlify_meta(meta: MutableMapping[str, Any]) -> None:
    """Front matter keys of Mintlify that mean something else (or a crash) to MkDocs themes.

    ``icon: building`` is a Font Awesome name: Material would look for ``.icons/building.svg``
    and stop the whole build, so it becomes Material's path for that icon, or goes.
    ``mode: wide`` / ``custom`` hide the table of contents (and the navigation), as Mintlify
    does; Material reads ``hide:``.
    """
    icon = meta.get("icon")
    if icon is not None:
        mapped = _theme_icon(icon) if isinstance(icon, str) else None
        if mapped:
            meta["icon"] = mapped
        else:
            del meta["icon"]
    mode = meta.get("mode")
    if mode in ("wide", "custom", "center") and "hide" not in meta:
        meta["hide"] = ["toc"] if mode != "custom" else ["navigation", "toc"]


def enable_extensions(config: MkDocsConfig) -> list[str]:
    """Turn on the extensions injected pages need; return the ones that were off.

    admonition and attr_list ship with Python-Markdown; the pymdownx ones (details, tabbed,
    superfences: fenced code inside admonitions and tabs) only when pymdown-extensions is
    installed, as it is with Material.
    """
    import importlib.util

    wanted: list[tuple[str, dict[str, Any]]] = [("admonition", {}), ("attr_list", {}),
                                                ("md_in_html", {})]
    if importlib.util.find_spec("pymdownx") is not None:
        wanted += [("pymdownx.details", {}), ("pymdownx.superfences", {}),
                   ("pymdownx.tabbed", {"alternate_style": True})]
    enabled = []
    for name, options in wanted:
        if name not in config.markdown_extensions:
            config.markdown_extensions.append(name)
            if options:
                config.mdx_configs.setdefault(name, options)
            enabled.append(name)
    return enabled
