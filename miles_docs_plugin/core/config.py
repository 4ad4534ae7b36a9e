"""The ``miles-docs.yml`` config: schema, loading and validation.

One schema serves the MkDocs plugin (``miles-docs.yml`` next to ``mkdocs.yml``, or inline
``sources:``), the Sphinx extension (``miles_docs_config`` / ``miles_docs_sources``) and the CLI.
The schema is data (:data:`TOP_FIELDS`, :data:`SOURCE_FIELDS`), so the README's reference is
generated from it and cannot disagree with what is validated.
"""

from __future__ import annotations

import copy
import os
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from .env import env_flag, on_ci
from .errors import ConfigError
from .patterns import lazy_re
from .plugins import BUILTIN_NAMES, make_plugin_manager
from .records import FrozenRecord
from .urls import RepoUrl, parse_repo_url

if TYPE_CHECKING:
    from .plugins import Hooks

CONFIG_FILE = "miles-docs.yml"
LOCK_FILE = "miles-docs.lock"

NAME_RE = lazy_re(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
UNRESOLVED_CHOICES = ("warn", "error", "ignore")


#: Pages larger than this many MiB are left out unless ``max_page_size`` says otherwise.
DEFAULT_MAX_PAGE_MIB = 2


_set = object.__setattr__  # frozen records set their fields once, in __init__


class FieldSpec(FrozenRecord):
    """One config key: its type, default and the sentence the reference prints."""

    __slots__ = _fields = ("key", "type", "default", "doc", "required", "check")
    key: str
    type: str  #: human-readable type, as printed in the reference
    default: Any
    doc: str
    required: bool
    check: Callable[[Any], bool] | None

    def __init__(self, key: str, type: str, default: Any, doc: str, required: bool = False,
                 check: Callable[[Any], bool] | None = None) -> None:
        _set(self, "key", key)
        _set(self, "type", type)
        _set(self, "default", default)
        _set(self, "doc", doc)
        _set(self, "required", required)
        _set(self, "check", check)

    def accepts(self, value: Any) -> bool:
        return self.check(value) if self.check else True


class ConfigKeys(FrozenRecord):
    """The config keys a plugin declares (hook ``mdp_config_keys``): top-level keys, and keys
    of each entry of ``sources:``. They are validated like the built-in ones."""

    __slots__ = _fields = ("top", "source")
    top: tuple[FieldSpec, ...]
    source: tuple[FieldSpec, ...]

    def __init__(self, top: tuple[FieldSpec, ...] = (),
                 source: tuple[FieldSpec, ...] = ()) -> None:
        _set(self, "top", top)
        _set(self, "source", source)


def _is_str(v: Any) -> bool:
    return isinstance(v, str) and v != ""


def _is_opt_str(v: Any) -> bool:
    return v is None or _is_str(v)


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def _is_opt_bool(v: Any) -> bool:
    return v is None or isinstance(v, bool)


def _is_list_of_str(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _is_banner(v: Any) -> bool:
    return v is None or isinstance(v, (bool, str))


NAV_MODES = ("auto", "tree")


def _is_nav(v: Any) -> bool:
    return v is None or isinstance(v, list) or v in NAV_MODES


def _is_links(v: Any) -> bool:
    return isinstance(v, dict)


SOURCE_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("name", "string", None, "Id of the source; also the default mount and the lock key.",
              required=True, check=_is_str),
    FieldSpec("repo", "string", None,
              "Git URL of the upstream repository (https, ssh, git, file, or a path relative to "
              "the config file).", required=True, check=_is_str),
    FieldSpec("ref", "string", "main",
              "Branch, tag or commit that `miles-docs update` follows. Builds never follow it: "
              "they use the commit in the lock file.", check=_is_str),
    FieldSpec("docs_dir", "string", "docs",
              "Folder of the docs inside the repository; `.` is the repository root.",
              check=_is_str),
    FieldSpec("mount", "string", "<name>",
              "URL prefix of the section in the host site (a relative path, no `..`).",
              check=_is_opt_str),
    FieldSpec("title", "string", "<Name>", "Navigation title of the section.", check=_is_opt_str),
    FieldSpec("nav", "`auto`, `tree` or list", "auto",
              "Navigation of the section. `auto`: the upstream's own (Mintlify `docs.json` / "
              "`mint.json` `navigation`, or the `nav:` of a `mkdocs.yml` next to `docs_dir`), "
              "else `tree`. `tree`: every page, the index first, folders as groups. A list: "
              "MkDocs `nav` syntax, paths relative to `docs_dir`.", check=_is_nav),
    FieldSpec("web_url", "string", "derived from `repo`",
              "Public web address of the repository, for permalinks, edit links and banners. "
              "Derived from GitHub/GitLab `repo` URLs.", check=_is_opt_str),
    FieldSpec("site_url", "string", None,
              "Public address of this source's own docs site (e.g. its Mintlify site); links to "
              "it, from any source, become internal links into this section.",
              check=_is_opt_str),
    FieldSpec("edit_uri", "string", "edit/<ref>/<docs_dir>/",
              "Path below `web_url` that edit links use; an empty string disables edit links.",
              check=lambda v: v is None or isinstance(v, str)),
    FieldSpec("local", "string", None,
              "Build from this local working copy instead of the pinned commit (preview only). "
              "`MILES_DOCS_LOCAL_<NAME>` overrides it.", check=_is_opt_str),
    FieldSpec("banner", "bool or string", None,
              "Per-source override of the top-level `banner`.", check=_is_banner),
    FieldSpec("placement", "string", "end",
              "Where the section goes in the host navigation: `end`, `start`, or `none` "
              "(the section is built but you place it yourself).",
              check=lambda v: v in ("end", "start", "none")),
    FieldSpec("trust", "string", "untrusted",
              "`untrusted`: injected pages are sandboxed (no file reads, includes, code, raw "
              "directives, scripts or unsafe URLs; see Security). `full`: the upstream is "
              "treated like the host's own pages.",
              check=lambda v: v is None or v in ("untrusted", "full")),
    FieldSpec("mintlify", "mapping", None,
              "Mintlify hosts: where the section goes in `docs.json`: `tab: Title` (a new tab) "
              "or `group: Title` (a new group; with `tab:` naming the existing tab it goes in), "
              "and `after:` or `before:` an existing tab (group). Default: a tab titled "
              "`title`, last.", check=lambda v: v is None or isinstance(v, dict)),
)

TOP_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("sources", "list of sources", None, "The upstream sections to inject.",
              required=True, check=lambda v: isinstance(v, list)),
    FieldSpec("lock_file", "string", LOCK_FILE,
              "Lock file with the pinned commits, relative to the config file.", check=_is_str),
    FieldSpec("cache_dir", "string", "user cache dir",
              "Where checkouts are cached (outside the host repository). `MILES_DOCS_CACHE` "
              "overrides it.", check=_is_opt_str),
    FieldSpec("cache", "bool", "`true` (`false` on CI)",
              "Keep checkouts and scans for the next build. `false`: the checkout goes to a "
              "temporary folder removed when the build ends (a build killed before it could "
              "remove it leaves it to the next build, which removes it), and no scan cache is "
              "read or written. Unset, it is `false` on CI (`CI` set) unless `MILES_DOCS_CACHE` or "
              "`cache_dir` says where to keep the cache, and the scan cache is kept on CI only "
              "when `MILES_DOCS_STATE` is set (its key lives there).", check=_is_opt_bool),
    FieldSpec("offline", "bool", False,
              "Never touch the network: a pin that is not cached is an error (local `file://` "
              "repositories still work). `MILES_DOCS_OFFLINE=1` sets it.", check=_is_bool),
    FieldSpec("host_urls", "list of strings", [],
              "Public URLs of the host site; upstream links to them become internal links.",
              check=_is_list_of_str),
    FieldSpec("banner", "bool or string", True,
              "Provenance banner on every injected page: `true`, `false`, or a template with "
              "`{repo}`, `{path}`, `{commit}`, `{short}`, `{url}`.", check=_is_banner),
    FieldSpec("max_page_size", "integer (MiB)", DEFAULT_MAX_PAGE_MIB,
              "Pages larger than this are left out and reported, so that one huge upstream "
              "file cannot stall a build.",
              check=lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 4096),
    FieldSpec("links", "mapping", {"unresolved": "warn"},
              "`unresolved: warn | error | ignore` — what an unresolvable link does.",
              check=_is_links),
    FieldSpec("disable", "list of strings", [],
              "Built-in plugins to turn off, by name: " + ", ".join(
                  f"`{name}`" for name in BUILTIN_NAMES) + " (see Writing plugins).",
              check=_is_list_of_str),
)


class SourceConfig(FrozenRecord):
    """One source of the config, validated: its repository, docs folder and mount."""

    __slots__ = _fields = ("name", "repo", "url", "ref", "docs_dir", "mount", "title", "nav",
                           "web_url", "site_url", "edit_uri", "local", "banner", "placement",
                           "trust", "mintlify", "extra")
    _nocompare = frozenset({"extra"})
    name: str
    repo: str  #: as written in the config (what the lock file records)
    url: RepoUrl  #: parsed and checked
    ref: str
    docs_dir: str
    mount: str
    title: str
    nav: list[Any] | str  #: "auto", "tree" or an explicit MkDocs-style list
    web_url: str | None
    site_url: str | None
    edit_uri: str | None
    local: Path | None
    banner: bool | str
    placement: str
    trust: str  #: ``untrusted`` (sandboxed pages) or ``full``
    mintlify: dict[str, Any] | None  #: placement in a Mintlify host's navigation
    #: Values of the keys plugins declare for a source (``mdp_config_keys``), defaults filled.
    extra: Mapping[str, Any]

    def __init__(self, name: str, repo: str, url: RepoUrl, ref: str, docs_dir: str, mount: str,
                 title: str, nav: list[Any] | str, web_url: str | None, site_url: str | None,
                 edit_uri: str | None, local: Path | None, banner: bool | str, placement: str,
                 trust: str = "untrusted", mintlify: dict[str, Any] | None = None,
                 extra: Mapping[str, Any] | None = None) -> None:
        _set(self, "name", name)
        _set(self, "repo", repo)
        _set(self, "url", url)
        _set(self, "ref", ref)
        _set(self, "docs_dir", docs_dir)
        _set(self, "mount", mount)
        _set(self, "title", title)
        _set(self, "nav", nav)
        _set(self, "web_url", web_url)
        _set(self, "site_url", site_url)
        _set(self, "edit_uri", edit_uri)
        _set(self, "local", local)
        _set(self, "banner", banner)
        _set(self, "placement", placement)
        _set(self, "trust", trust)
        _set(self, "mintlify", mintlify)
        _set(self, "extra", {} if extra is None else extra)

    @property
    def sandboxed(self) -> bool:
        return self.trust != "full"

    @property
    def display(self) -> str:
        """Short name of the repository for logs and banners (``owner/name`` when known)."""
        if self.web_url:
            path = self.web_url.split("://", 1)[-1].split("/", 1)
            if len(path) == 2 and path[1].strip("/"):
                return path[1].strip("/")
        return self.url.display


class Config(FrozenRecord):
    """The whole config, validated: the sources and the top-level keys."""

    __slots__ = _fields = ("base_dir", "config_file", "sources", "lock_file", "cache_dir",
                           "offline", "host_urls", "banner", "unresolved", "max_page_size",
                           "cache", "scan_cache", "raw", "disable", "extra", "hooks")
    _norepr = frozenset({"raw", "hooks"})
    _nocompare = frozenset({"raw", "extra", "hooks"})
    base_dir: Path  #: folder of the config file; relative paths are relative to it
    config_file: Path | None  #: None for inline configs
    sources: tuple[SourceConfig, ...]
    lock_file: Path
    cache_dir: Path | None
    offline: bool
    host_urls: tuple[str, ...]
    banner: bool | str
    unresolved: str
    max_page_size: int
    #: keep checkouts for later builds (False: a temporary folder, removed at exit)
    cache: bool
    #: read and write the scan cache (never without ``cache``)
    scan_cache: bool
    raw: Mapping[str, Any]
    disable: tuple[str, ...]  #: names of the built-in plugins turned off
    #: Values of the top-level keys plugins declare (``mdp_config_keys``), defaults filled.
    extra: Mapping[str, Any]
    #: The plugin manager the config was validated with; a build without its own uses it.
    hooks: Hooks | None

    def __init__(self, base_dir: Path, config_file: Path | None,
                 sources: tuple[SourceConfig, ...], lock_file: Path, cache_dir: Path | None,
                 offline: bool, host_urls: tuple[str, ...], banner: bool | str, unresolved: str,
                 max_page_size: int = DEFAULT_MAX_PAGE_MIB, cache: bool = True,
                 scan_cache: bool = True, raw: Mapping[str, Any] | None = None,
                 disable: tuple[str, ...] = (), extra: Mapping[str, Any] | None = None,
                 hooks: Hooks | None = None) -> None:
        _set(self, "base_dir", base_dir)
        _set(self, "config_file", config_file)
        _set(self, "sources", sources)
        _set(self, "lock_file", lock_file)
        _set(self, "cache_dir", cache_dir)
        _set(self, "offline", offline)
        _set(self, "host_urls", host_urls)
        _set(self, "banner", banner)
        _set(self, "unresolved", unresolved)
        _set(self, "max_page_size", max_page_size)
        _set(self, "cache", cache)
        _set(self, "scan_cache", scan_cache)
        _set(self, "raw", {} if raw is None else raw)
        _set(self, "disable", disable)
        _set(self, "extra", {} if extra is None else extra)
        _set(self, "hooks", hooks)

    def source(self, name: str) -> SourceConfig:
        for s in self.sources:
            if s.name == name:
                return s
        raise ConfigError(f"no source named {name!r}", where=str(self.config_file or "config"),
                          hint=f"configured: {', '.join(s.name for s in self.sources) or 'none'}")


def _where(config_file: Path | None, key: str) -> str:
    return f"{config_file or 'inline config'}: {key}"


def _unknown_key(spec: Sequence[FieldSpec], key: str, where: str) -> ConfigError:
    import difflib  # only for a mistake: not at every import

    names = [f.key for f in spec]
    close = difflib.get_close_matches(key, names, n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"valid keys: {', '.join(names)}"
    return ConfigError(f"unknown key {key!r}", where=where, hint=hint)


def _check_fields(spec: Sequence[FieldSpec], data: Mapping[str, Any], where: str) -> None:
    names = {f.key for f in spec}
    for key in data:
        if key not in names:
            raise _unknown_key(spec, str(key), where)
    for f in spec:
        if f.key not in data or data[f.key] is None:
            if f.required:
                raise ConfigError(f"missing required key {f.key!r}", where=where,
                                  hint=f"{f.key}: {f.doc}")
            continue
        if not f.accepts(data[f.key]):
            raise ConfigError(
                f"{f.key!r} must be {f.type}, got {data[f.key]!r}", where=where,
                hint=f"{f.key}: {f.doc}")


def _clean_rel(path: str, what: str, where: str) -> str:
    """A relative POSIX path with no ``..``, no leading or trailing slash."""
    p = path.strip().strip("/") if not path.startswith("/") else path
    if path.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", path):
        raise ConfigError(f"{what} {path!r} must be a relative path", where=where,
                          hint=f"write it without the leading '/', e.g. {path.strip('/')!r}")
    parts = [x for x in p.replace("\\", "/").split("/") if x not in ("", ".")]
    if any(x == ".." for x in parts):
        raise ConfigError(f"{what} {path!r} must not contain '..'", where=where,
                          hint="mount the section below the host's docs folder")
    if not parts:
        raise ConfigError(f"{what} {path!r} is empty", where=where,
                          hint="name a folder, e.g. the source name")
    return "/".join(parts)


ROOT_DOCS = "."  #: ``docs_dir`` of a repository whose root is the docs folder


def docs_prefix(docs_dir: str) -> str:
    """What repository paths of the docs folder start with (``docs/``; "" for the root)."""
    return "" if docs_dir == ROOT_DOCS else docs_dir + "/"


def _default_title(name: str) -> str:
    return re.sub(r"[-_]+", " ", name).strip().title()


def local_env_var(name: str) -> str:
    """``MILES_DOCS_LOCAL_<NAME>``: the environment variable of a source's local override."""
    return "MILES_DOCS_LOCAL_" + re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def _parse_source(raw: Any, index: int, config_file: Path | None, base_dir: Path,
                  default_banner: bool | str, env: Mapping[str, str],
                  plugin_fields: Sequence[FieldSpec] = ()) -> SourceConfig:
    where = _where(config_file, f"sources[{index}]")
    if not isinstance(raw, dict):
        raise ConfigError(f"each source must be a mapping, got {raw!r}", where=where,
                          hint="write `- name: ...` with `repo:` below it")
    if isinstance(raw.get("name"), str):
        where = _where(config_file, f"sources[{index}] ({raw['name']})")
    _check_fields((*SOURCE_FIELDS, *plugin_fields), raw, where)
    name: str = raw["name"]
    if not NAME_RE.match(name):
        raise ConfigError(f"source name {name!r} may only hold letters, digits, '.', '_' and '-'",
                          where=where, hint="it is used as a lock key and a folder name")
    url = parse_repo_url(raw["repo"], base_dir=base_dir, where=f"{where}: repo")
    raw_docs = raw.get("docs_dir") or "docs"
    if raw_docs.strip() in (".", "./"):
        docs_dir = ROOT_DOCS  # a standalone docs repository (most Mintlify sites)
    elif raw_docs.strip() and raw_docs.strip().strip("/") == "":
        raise ConfigError(f"docs_dir {raw_docs!r} must be a relative path", where=where,
                          hint="write '.' for the repository root")
    else:
        docs_dir = _clean_rel(raw_docs, "docs_dir", where)
    mount = _clean_rel(raw.get("mount") or name, "mount", where)
    local_raw = env.get(local_env_var(name)) or raw.get("local")
    local = (base_dir / local_raw).resolve() if local_raw else None
    banner = raw["banner"] if raw.get("banner") is not None else default_banner
    return SourceConfig(
        name=name,
        repo=raw["repo"],
        url=url,
        ref=raw.get("ref") or "main",
        docs_dir=docs_dir,
        mount=mount,
        title=raw.get("title") or _default_title(name),
        nav=raw["nav"] if raw.get("nav") is not None else "auto",
        web_url=(raw.get("web_url") or url.web_url or None),
        site_url=(raw.get("site_url") or "").rstrip("/") or None,
        edit_uri=raw.get("edit_uri"),
        local=local,
        banner=banner,
        placement=raw.get("placement") or "end",
        trust=raw.get("trust") or "untrusted",
        mintlify=raw.get("mintlify"),
        extra=_values(plugin_fields, raw),
    )


def _values(spec: Sequence[FieldSpec], data: Mapping[str, Any]) -> dict[str, Any]:
    """The values of ``spec``'s keys in ``data``, or (copies of) their defaults."""
    return {f.key: data[f.key] if data.get(f.key) is not None else copy.deepcopy(f.default)
            for f in spec}


def _plugin_fields(hooks: Hooks, where: str) -> tuple[list[FieldSpec], list[FieldSpec]]:
    """The top-level and per-source keys the plugins declare; a key declared twice (by a
    plugin and a built-in, or by two plugins) is an error naming both."""
    owners = {("", f.key): "miles-docs itself" for f in TOP_FIELDS}
    owners.update({("sources", f.key): "miles-docs itself" for f in SOURCE_FIELDS})
    top: list[FieldSpec] = []
    source: list[FieldSpec] = []
    for plugin, keys in hooks.config_keys():
        for scope, specs, out in (("", keys.top, top), ("sources", keys.source, source)):
            for spec in specs:
                key = f"{scope}[].{spec.key}" if scope else spec.key
                other = owners.get((scope, spec.key))
                if other is not None:
                    raise ConfigError(
                        f"plugin {plugin!r} declares the config key {key!r}, which {other} "
                        "declares too", where=where,
                        hint="plugins must declare keys of their own: rename the plugin's key")
                owners[(scope, spec.key)] = f"plugin {plugin!r}"
                out.append(spec)
    return top, source


def _check_disable(names: list[str], config_file: Path | None) -> tuple[str, ...]:
    for name in names:
        if name not in BUILTIN_NAMES:
            import difflib

            close = difflib.get_close_matches(name, BUILTIN_NAMES, n=1)
            raise ConfigError(
                f"unknown plugin {name!r} in `disable`", where=_where(config_file, "disable"),
                hint=(f"did you mean {close[0]!r}? " if close else "")
                + f"built-in plugins: {', '.join(BUILTIN_NAMES)}")
    return tuple(dict.fromkeys(names))


def parse_config(data: Any, *, base_dir: Path, config_file: Path | None = None,
                 env: Mapping[str, str] | None = None, hooks: Hooks | None = None) -> Config:
    """Validate a config mapping (already loaded from YAML or given inline).

    The keys the plugins of ``hooks`` declare (``mdp_config_keys``) are validated with the
    built-in ones; without ``hooks``, a new plugin manager (built-ins and entry points) is made,
    and kept on the config for the build.
    """
    env = os.environ if env is None else env
    where = str(config_file or "inline config")
    if not isinstance(data, dict):
        raise ConfigError("the config must be a mapping with a `sources:` list", where=where,
                          hint="see the README's smallest config")
    if hooks is None:
        hooks = make_plugin_manager()
    plugin_top, plugin_source = _plugin_fields(hooks, where)
    _check_fields((*TOP_FIELDS, *plugin_top), data, where)
    disable = _check_disable(data.get("disable") or [], config_file)
    links = data.get("links") or {}
    for key in links:
        if key != "unresolved":
            raise _unknown_key((FieldSpec("unresolved", "", "", ""),), str(key),
                               _where(config_file, "links"))
    unresolved = links.get("unresolved", "warn")
    if unresolved not in UNRESOLVED_CHOICES:
        raise ConfigError(f"links.unresolved must be one of {', '.join(UNRESOLVED_CHOICES)}, "
                          f"got {unresolved!r}", where=where)
    banner = data.get("banner", True)
    if banner is None:
        banner = True
    sources = tuple(_parse_source(raw, i, config_file, base_dir, banner, env, plugin_source)
                    for i, raw in enumerate(data["sources"]))
    if not sources:
        raise ConfigError("`sources:` is empty", where=where,
                          hint="add at least one source with `name:` and `repo:`")
    seen: dict[str, str] = {}
    mounts: dict[str, str] = {}
    for s in sources:
        if s.name in seen:
            raise ConfigError(f"duplicate source name {s.name!r}", where=where,
                              hint="every source needs its own name (it is the lock key)")
        seen[s.name] = s.name
        for other_mount, other in mounts.items():
            if s.mount == other_mount or s.mount.startswith(other_mount + "/") or \
                    other_mount.startswith(s.mount + "/"):
                raise ConfigError(
                    f"sources {other!r} and {s.name!r} both mount at {s.mount!r}"
                    if s.mount == other_mount else
                    f"mount {s.mount!r} of {s.name!r} overlaps mount {other_mount!r} of {other!r}",
                    where=where, hint="give each source its own `mount:` folder")
        mounts[s.mount] = s.name
    cache_env = env.get("MILES_DOCS_CACHE")
    cache_raw = cache_env or data.get("cache_dir")
    cache_dir = (base_dir / os.path.expanduser(cache_raw)).resolve() if cache_raw else None
    offline = bool(data.get("offline", False)) or env_flag("MILES_DOCS_OFFLINE", env)
    # A CI runner starts with empty user folders: what a build keeps there is never read
    # again, unless MILES_DOCS_CACHE / cache_dir name a folder the job persists.
    ci = on_ci(env)
    keep = data.get("cache")
    if keep is None:
        keep = not (ci and not cache_raw)
    scan_cache = keep and (not ci or bool(env.get("MILES_DOCS_STATE")))
    return Config(
        base_dir=base_dir,
        config_file=config_file,
        sources=sources,
        lock_file=(base_dir / (data.get("lock_file") or LOCK_FILE)),
        cache_dir=cache_dir,
        offline=offline,
        host_urls=tuple(u.rstrip("/") for u in data.get("host_urls") or ()),
        banner=banner,
        unresolved=unresolved,
        max_page_size=int(data.get("max_page_size") or DEFAULT_MAX_PAGE_MIB),
        cache=keep,
        scan_cache=scan_cache,
        raw=data,
        disable=disable,
        extra=_values(plugin_top, data),
        hooks=hooks,
    )


def load_yaml_file(path: Path, what: str, *, strings: bool = False) -> Any:
    """Load a YAML file safely, turning YAML errors into one clear message with the line.

    ``strings=True`` reads every scalar as a string (``yaml.BaseLoader``): a commit id made
    only of digits must not turn into a number.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the {what}: {exc}", where=str(path)) from None
    try:
        try:
            return yaml.load(text, Loader=_FastBaseLoader if strings else _FastSafeLoader)
        except yaml.YAMLError:
            pass  # said again by the Python loader, whose messages the errors quote
        return yaml.load(text, Loader=_StrictBaseLoader if strings else _StrictSafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        duplicate = isinstance(exc, DuplicateKeyError)
        raise ConfigError(f"invalid YAML in the {what}: {problem}", where=where,
                          hint="keep one of them: YAML would silently use the last"
                          if duplicate else "fix the syntax at that line") from None


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """The same key twice in one mapping (YAML loaders keep the last, silently)."""


def _check_duplicates(node: yaml.MappingNode) -> None:
    seen: dict[str, int] = {}
    for key_node, _value in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.value == "<<":
            continue
        first = seen.setdefault(key_node.value, key_node.start_mark.line + 1)
        if first != key_node.start_mark.line + 1:
            raise DuplicateKeyError(None, None, f"duplicate key {key_node.value!r} (first on "
                                    f"line {first})", key_node.start_mark)


class _StrictSafeLoader(yaml.SafeLoader):
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        _check_duplicates(node)
        return super().construct_mapping(node, deep=deep)


class _StrictBaseLoader(yaml.BaseLoader):
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        _check_duplicates(node)
        return super().construct_mapping(node, deep=deep)


#: The same loaders over libyaml when PyYAML has it: a build reads the config and the lock
#: with them (about six times faster); an error is read again by the Python loader above.
_FastSafeLoader: type = _StrictSafeLoader
_FastBaseLoader: type = _StrictBaseLoader
if getattr(yaml, "__with_libyaml__", False):
    class _FastSafeLoader(yaml.CSafeLoader):  # type: ignore[no-redef]
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
            _check_duplicates(node)
            return super().construct_mapping(node, deep=deep)

    class _FastBaseLoader(yaml.CBaseLoader):  # type: ignore[no-redef]
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
            _check_duplicates(node)
            return super().construct_mapping(node, deep=deep)


def load_config(path: Path, *, env: Mapping[str, str] | None = None,
                hooks: Hooks | None = None) -> Config:
    """Load and validate ``miles-docs.yml`` (``hooks``: as for :func:`parse_config`)."""
    path = path.resolve()
    try:
        data = load_yaml_file(path, "config file")
    except FileNotFoundError:
        raise ConfigError("config file not found", where=str(path),
                          hint="create it with `miles-docs init`, or see the README") from None
    return parse_config(data, base_dir=path.parent, config_file=path, env=env, hooks=hooks)


def load_host_config(base_dir: Path, config_file: str, inline: Mapping[str, Any],
                     inline_name: str = "sources") -> Config:
    """The config a host names: inline in the host's own config when it has ``sources``
    (``inline_name`` is what the host calls that key), else ``config_file`` (relative to
    ``base_dir``). Inline options without sources are refused: they would be ignored."""
    if inline.get("sources") is not None:
        return parse_config(dict(inline), base_dir=base_dir, config_file=None)
    if inline:
        raise ConfigError(f"inline options {', '.join(sorted(inline))} need `{inline_name}:` "
                          f"next to them (or move them into {config_file})")
    return load_config(base_dir / config_file)


def mkdocs_config_paths(docs_dir: str) -> list[str]:
    """Where an upstream MkDocs config next to ``docs_dir`` would be (repository paths)."""
    if docs_dir == ROOT_DOCS:
        return []
    parent = posixpath.dirname(docs_dir)
    return [posixpath.join(parent, name) for name in ("mkdocs.yml", "mkdocs.yaml")]


def _default_text(spec: FieldSpec) -> str:
    if spec.required:
        return "required"
    if spec.default is None:
        return "—"
    if isinstance(spec.default, bool):
        return "`true`" if spec.default else "`false`"
    if isinstance(spec.default, (list, dict)):
        return f"`{yaml.safe_dump(spec.default, default_flow_style=True).strip()}`"
    text = str(spec.default)
    already = text.startswith(("user ", "derived")) or "`" in text
    return text if already else f"`{text}`"


def reference_markdown() -> str:
    """The config reference, as the README prints it (generated from the schema)."""
    rows = ["| key | type | default | meaning |", "| --- | --- | --- | --- |"]
    for spec in TOP_FIELDS:
        rows.append(_row(spec))
    rows += ["", "Each entry of `sources:`:", "",
             "| key | type | default | meaning |", "| --- | --- | --- | --- |"]
    for spec in SOURCE_FIELDS:
        rows.append(_row(spec))
    return "\n".join(rows) + "\n"


def _row(spec: FieldSpec) -> str:
    doc = spec.doc.replace("|", "\\|")
    return f"| `{spec.key}` | {spec.type} | {_default_text(spec)} | {doc} |"
