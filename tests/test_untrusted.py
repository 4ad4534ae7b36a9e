"""The upstream is untrusted: what an attacker who controls the upstream repository, or who can
write the cache folder, can get published. Every test states an attack and asserts the outcome:
the forged text, host file, secret, fetch or script is absent from every output file, the
warning names the upstream file and line, and the host's ``git status`` is what it was.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path

import pytest
from hosts import ENGINES, Host, make_host
from support import git, make_repo, run, write
from test_git_source import entry_of, setup_host
from test_hostile import untouched

from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.errors import FetchError
from miles_docs_plugin.core.pipeline import build
from miles_docs_plugin.core.source.integrity import blob_id, object_id, root_tree, verify_commit

FORGED = "FORGED-BY-THE-CACHE"


def forge_page(entry: Path, path: str, text: str) -> None:
    """Edit a cached file *and* its blob id in the manifest, as someone who can write a shared
    CI cache could: the manifest then agrees with the file."""
    data = text.encode()
    (entry / "files" / path).write_bytes(data)
    manifest_file = entry / "manifest.json"
    manifest = json.loads(manifest_file.read_text())
    for row in manifest["tree"]:
        if row[0] == path:
            row[2] = blob_id(data)
    manifest_file.write_text(json.dumps(manifest))


@pytest.fixture
def upstream(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "up"
    commit = make_repo(repo, {"docs/index.md": "# Home\n\nOriginal text. [A](a.md)\n",
                              "docs/a.md": "# A\n\n![logo](img/logo.png)\n",
                              "docs/img/logo.png": b"\x89PNG original",
                              "src/x.py": "print('x')\n"})
    return repo, commit


def test_git_object_ids_and_the_merkle_chain(tmp_path: Path, upstream: tuple[Path, str]) -> None:
    """integrity.py computes what git computes: the root tree of the listing and the commit."""
    repo, commit = upstream
    assert blob_id(b"# A\n\n![logo](img/logo.png)\n") == git(repo, "rev-parse", "HEAD:docs/a.md")
    listing = git(repo, "ls-tree", "-r", "-t", "--full-tree", commit)
    entries = {}
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        mode, _kind, oid = meta.split()
        entries[path] = (mode, oid)
    assert root_tree(entries) == git(repo, "rev-parse", "HEAD^{tree}")
    raw = git(repo, "cat-file", "commit", commit).encode() + b"\n"
    assert object_id("commit", raw) == commit
    verify_commit(commit, raw, entries)
    forged = dict(entries)
    forged["docs/a.md"] = (entries["docs/a.md"][0], blob_id(b"# forged\n"))
    with pytest.raises(ValueError, match="does not hash to tree"):
        verify_commit(commit, raw, forged)


@pytest.mark.parametrize("offline", [False, True])
@pytest.mark.parametrize("path", ["docs/index.md", "docs/img/logo.png"])
def test_forged_cache_content_is_never_published(tmp_path: Path, cache_dir: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 upstream: tuple[Path, str], path: str,
                                                 offline: bool) -> None:
    repo, commit = upstream
    config_path = setup_host(tmp_path, repo.as_uri(), commit)
    build(load_config(config_path), Engine())
    entry = entry_of(cache_dir)
    forge_page(entry, path, f"# {FORGED}\n")
    if offline:
        monkeypatch.setenv("MILES_DOCS_OFFLINE", "1")
        with pytest.raises(FetchError) as err:
            build(load_config(config_path), Engine())
        # refused, with the folder to delete
        assert "was modified after it was fetched" in str(err.value)
        assert str(entry) in str(err.value)
        return
    result = build(load_config(config_path), Engine())
    section = result.sections["diffusion"]
    assert not section.checkout.cached  # fetched again: the entry did not hash to the pin
    texts = [p.content for p in section.pages.values()]
    assert all(FORGED not in t for t in texts)
    assert "Original text." in section.pages["index.md"].content
    assert (entry / "files" / "docs" / "img" / "logo.png").read_bytes() == b"\x89PNG original"


def test_a_forged_commit_object_or_tree_listing_is_refused(tmp_path: Path, cache_dir: Path,
                                                           upstream: tuple[Path, str]) -> None:
    """Forging the manifest's commit object or a tree id is caught by the chain to the pin."""
    repo, commit = upstream
    config_path = setup_host(tmp_path, repo.as_uri(), commit)
    build(load_config(config_path), Engine())
    entry = entry_of(cache_dir)
    manifest_file = entry / "manifest.json"
    manifest = json.loads(manifest_file.read_text())
    raw = base64.b64decode(manifest["commit_object"])
    manifest["commit_object"] = base64.b64encode(raw.replace(b"commit", b"c0mmit")).decode()
    manifest_file.write_text(json.dumps(manifest))
    forge_page(entry, "docs/index.md", f"# {FORGED}\n")
    result = build(load_config(config_path), Engine())
    assert not result.sections["diffusion"].checkout.cached
    assert FORGED not in result.sections["diffusion"].pages["index.md"].content


def test_a_forged_scan_cache_is_ignored(tmp_path: Path, cache_dir: Path,
                                        monkeypatch: pytest.MonkeyPatch,
                                        upstream: tuple[Path, str]) -> None:
    """The scan cache says where links are; a forged one could hide a link from the link rules.
    Its file is authenticated with a key kept outside the cache folder."""
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    repo, commit = upstream
    config_path = setup_host(tmp_path, repo.as_uri(), commit)
    first = build(load_config(config_path), Engine())
    expected = {p: page.content for p, page in first.sections["diffusion"].pages.items()}
    (scan_file,) = (cache_dir / "scans").glob("*.json")
    mac, _, payload = scan_file.read_bytes().partition(b"\n")
    assert len(mac) == 64  # an HMAC-SHA256, under the key in MILES_DOCS_STATE
    assert (tmp_path / "state" / "cache.key").stat().st_mode & 0o077 == 0
    data = json.loads(payload)
    for value in data["entries"].values():  # every link moved to "somewhere else"
        if value and isinstance(value[0], list):
            for link in value[0]:
                link[3] = "javascript:alert(1)"
    scan_file.write_bytes(mac + b"\n" + json.dumps(data).encode())
    again = build(load_config(config_path), Engine())
    got = {p: page.content for p, page in again.sections["diffusion"].pages.items()}
    assert got == expected
    assert all("javascript" not in t for t in got.values())
    assert not (cache_dir / "results").exists()  # no unverifiable build-result cache


# -- engines: a page may contribute page content and nothing else -----------------------------

#: single tokens, so that syntax highlighting cannot split them across elements
# What `{{ 7 * 191 }}` gives when a template engine runs it: a number standing alone, not
# digits inside a commit id or an asset hash of the page.
MACRO_RESULT = re.compile(r"(?<![0-9A-Za-z])1337(?![0-9A-Za-z])")
SECRET = "HOSTSECRET4b1d"
TOKEN = "tokSECRET9f3c"


def attack_host(tmp_path: Path, engine: str, pages: dict[str, str | bytes], *,
                conf_extra: str = "", mkdocs_extra: str = "", source_extra: str = "",
                theme: str | None = None, top: str = "") -> Host:
    """A host whose upstream holds the attacker's ``pages``; the host has a secret file."""
    repo = tmp_path / "upstream"
    commit = make_repo(repo, {"docs/index.md": "# Home\n\nWelcome.\n", **pages})
    config = (f"{top}sources:\n  - name: diffusion\n    repo: {repo.as_uri()}\n"
              f"    web_url: https://github.com/radixark/miles_diffusion\n{source_extra}")
    if theme and engine == "mkdocs":
        mkdocs_extra = f"theme:\n  name: {theme}\n{mkdocs_extra}"
    if theme and engine == "sphinx":
        conf_extra = f"html_theme = {theme!r}\n{conf_extra}"
    host = make_host(engine, tmp_path / "host", repo.as_uri(), commit, config=config,
                     conf_extra=conf_extra, mkdocs_extra=mkdocs_extra,
                     minimal_theme=theme is None)
    write(host.root / "secret.txt", f"{SECRET}\n")
    git(host.root, "add", "-A")
    git(host.root, "commit", "-q", "-m", "a secret")
    return host


def published(host: Host) -> str:
    """Every file of the build output, concatenated, also with the HTML tags taken out (so
    text that highlighting splits into elements is found too)."""
    out = []
    for path in sorted(host.out.rglob("*")):
        if path.is_file():
            text = path.read_text("utf-8", errors="replace")
            out += [text, re.sub(r"<[^>]*>", "", text)]
    return "\n".join(out)


SPHINX_READS = {
    "literalinclude": "```{literalinclude} ../../secret.txt\n```\n",
    "literalinclude-abs": "```{literalinclude} /proc/self/environ\n```\n",
    "include": "```{include} ../../secret.txt\n```\n",
    "raw-file": "```{raw} html\n:file: ../../secret.txt\n```\n",
    "csv-file": "```{csv-table} T\n:file: ../../secret.txt\n```\n",
    "eval-rst": "```{eval-rst}\n.. include:: ../../secret.txt\n\n"
                ".. literalinclude:: /proc/self/environ\n```\n",
    "download": "Get {download}`../../secret.txt` now.\n",
    "image": "```{image} ../../secret.txt\n```\n",
}


@pytest.mark.parametrize("attack", sorted(SPHINX_READS))
def test_sphinx_pages_cannot_read_host_files_or_the_environment(
        tmp_path: Path, cache_dir: Path, attack: str) -> None:
    page = f"# Attack\n\nSome text.\n\n{SPHINX_READS[attack]}"
    host = attack_host(tmp_path, "sphinx", {"docs/attack.md": page})
    with untouched(host):
        result = host.build(env={"MILES_DOCS_GIT_TOKEN": TOKEN}, strict=False)
    assert result.returncode == 0, result.output
    out = published(host)
    assert SECRET not in out and TOKEN not in out
    assert not list(host.out.rglob("secret.txt"))
    # the line of the directive; inside {eval-rst}, of the reST directive that reads
    first = 1 if attack == "eval-rst" else 0
    line = page.splitlines().index(SPHINX_READS[attack].splitlines()[first]) + 1
    assert f"radixark/miles_diffusion:docs/attack.md:{line}" in result.output, result.output
    assert "not allowed in pages of an untrusted source" in result.output or \
        "outside the section" in result.output
    strict = host.build("-E")  # every page read again
    assert strict.returncode != 0  # -W fails on it


def test_sphinx_raw_url_is_not_fetched_and_ifconfig_not_evaluated(
        tmp_path: Path, cache_dir: Path) -> None:
    import http.server
    import threading

    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(SECRET.encode())

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        marker = tmp_path / "PWNED"
        page = (f"# Attack\n\n```{{raw}} html\n:url: http://127.0.0.1:{server.server_port}/ssrf\n"
                f"```\n\n```{{ifconfig}} __import__('pathlib').Path({str(marker)!r})"
                ".write_text('x') or True\nShown when the expression is true.\n```\n")
        host = attack_host(tmp_path, "sphinx", {"docs/attack.md": page},
                           conf_extra='extensions.append("sphinx.ext.ifconfig")\n')
        with untouched(host):
            result = host.build(strict=False)
        assert result.returncode == 0, result.output
        assert hits == []  # no request left the build
        assert not marker.exists()  # no code ran
        assert SECRET not in published(host)
        assert "radixark/miles_diffusion:docs/attack.md:3" in result.output
        assert "radixark/miles_diffusion:docs/attack.md:7" in result.output
    finally:
        server.shutdown()


def test_sphinx_substitutions_do_not_run_jinja(tmp_path: Path, cache_dir: Path) -> None:
    page = "# Attack\n\nThe answer is {{ 7 * 191 }} and {{ env.config.project }}.\n"
    host = attack_host(tmp_path, "sphinx", {"docs/attack.md": page},
                       conf_extra='myst_enable_extensions = ["substitution"]\n')
    with untouched(host):
        result = host.build(strict=False)
    assert result.returncode == 0, result.output
    text = host.site().page("diffusion/attack.html").text
    assert not MACRO_RESULT.search(text) and "{{ 7 * 191 }}" in text


def test_mkdocs_snippets_and_macros_are_text(tmp_path: Path, cache_dir: Path) -> None:
    marker = tmp_path / "PWNED"
    shell = f"__import__('os').system('touch {marker}')"
    page = ('# Attack\n\nSnippet:\n\n--8<-- "secret.txt"\n\n--8<--\nmkdocs.yml\n--8<--\n\n'
            "Macro: {{ 7 * 191 }}\n\n"
            "{{ self.__init__.__globals__.__builtins__." + shell + " }}\n")
    host = attack_host(tmp_path, "mkdocs", {"docs/attack.md": page}, mkdocs_extra=(
        "markdown_extensions:\n  - pymdownx.snippets:\n      base_path: ['.']\n"
        "plugins:\n  - search\n  - macros\n  - miles-docs\n"))
    with untouched(host):
        result = host.build(strict=False)
    assert result.returncode == 0, result.output
    out = published(host)
    assert SECRET not in out and "site_name: Host" not in out
    assert not MACRO_RESULT.search(out) and not marker.exists()
    text = host.site().page("diffusion/attack/index.html").text
    assert '--8&lt;-- "secret.txt"' in text or '--8<-- "secret.txt"' in text
    assert "{{ 7 * 191 }}" in text
    assert "radixark/miles_diffusion/docs/attack.md:5" in result.output or \
        "docs/attack.md:5" in result.output
    assert host.build().returncode != 0  # --strict fails on it


SCRIPTS = {
    "form": '<form action="javascript:alert(11)"><button>go</button></form>',
    "svg": '<svg><a xlink:href="javascript:alert(12)"><text>x</text></a></svg>',
    "object": '<object data="javascript:alert(13)"></object>',
    "onerror": "<img src=x onerror=alert(14)>",
    "script": "<script>alert(15)</script>",
    "entity": '<a href="java&#x09;script:alert(16)">x</a>',
    # SVG animation sets a link's href after the page loaded: the URL check never sees it
    "animate": '<svg><a><animate attributeName="href" values="https://x;javascript:alert(19)" '
               'dur="0.1s" fill="freeze"/><set attributeName="href" to="javascript:alert(19)"/>'
               '<text>x</text></a></svg>',
    # comments that a browser ends sooner than Python's parser (before 3.13.4) did
    "comment": "<!--><img src=x onerror=alert(25)>-->",
    "comment-bang": "Text <!--x--!><img src=y onerror=alert(26)>--> more.",
}


@pytest.mark.parametrize("engine", ENGINES)
def test_script_in_raw_html_and_attribute_lists(tmp_path: Path, cache_dir: Path,
                                                engine: str) -> None:
    body = "\n\n".join(SCRIPTS.values())
    page = f"# Attack\n\n{body}\n\n[x](https://example.org){{ href=\"javascript:alert(17)\" }}\n" \
           "\n[y](https://example.org){: onclick=\"alert(18)\" }\n"
    host = attack_host(tmp_path, engine, {"docs/attack.md": page})
    with untouched(host):
        result = host.build(strict=False)
    assert result.returncode == 0, result.output
    # where a browser would run it: the HTML pages (Sphinx also publishes the page source as
    # text in _sources/, which no browser runs)
    out = "\n".join(page.text for page in host.site().pages.values())
    for n in (*range(11, 17), 19, 25, 26):
        assert f"alert({n})" not in out, n
    # Sphinx shows the attribute lists as text; no engine makes them attributes
    assert not re.search(r"(?i)=\s*[\"']?\s*javascript:", out)
    assert not re.search(r"(?i)\son\w+\s*=\s*[\"']?alert\(", out)
    assert "docs/attack.md:3" in result.output  # the form's line


CHROME = {
    "docs/<img src=x onerror=alert(21)>/page.md": "# P\n",
    "docs/titled.md": "---\ntitle: <img src=x onerror=alert(22)>\n"
                      "description: '\"><script>alert(23)</script>'\n---\n# T\n",
    "docs/sidebar.md": "---\nsidebarTitle: </title><script>alert(24)</script>\n---\n# S\n",
}


@pytest.mark.parametrize(("engine", "theme"), [
    ("mkdocs", "mkdocs"), ("mkdocs", "material"), ("mkdocs", "readthedocs"),
    ("sphinx", "alabaster"), ("sphinx", "furo"), ("sphinx", "pydata_sphinx_theme"),
    ("sphinx", "sphinx_book_theme")])
def test_upstream_titles_never_become_markup_in_the_chrome(tmp_path: Path, cache_dir: Path,
                                                           engine: str, theme: str) -> None:
    host = attack_host(tmp_path, engine, dict(CHROME), theme=theme, source_extra=(
        "    banner: '<p class=\"b\">From {path}</p>'\n"))
    with untouched(host):
        result = host.build(strict=False)
    assert result.returncode == 0, result.output
    pages = host.site().pages.values()
    assert pages
    for page in pages:  # escaped text is fine; a tag is not
        for n in (21, 22, 23, 24):
            assert f"<img src=x onerror=alert({n})" not in page.text, (n, page.path)
            assert f"<script>alert({n})" not in page.text, (n, page.path)
    # the folder with a tag in its name is not a page: names are reported, never carried
    assert not [p for p in host.out.rglob("*") if "<" in p.name]
    assert "docs/<img src=x onerror=alert(21)>/page.md" in result.output


@pytest.mark.parametrize(("engine", "builder"), [("mkdocs", ""), ("sphinx", "html"),
                                                 ("sphinx", "dirhtml")])
def test_a_host_page_named_like_the_mount_is_never_replaced(tmp_path: Path, cache_dir: Path,
                                                            engine: str, builder: str) -> None:
    repo = tmp_path / "upstream"
    commit = make_repo(repo, {"docs/index.md": "# Upstream index\n"})
    host = make_host(engine, tmp_path / "host", repo.as_uri(), commit, name="up",
                     host_pages={"up.md": "# The host's own page\n"})
    with untouched(host):
        result = host.build(*(["-b", builder] if builder else []))
    assert result.returncode != 0
    assert "source 'up' mounts at 'up', but the host already has" in result.output
    assert "up.md" in result.output and "Nothing was overwritten" in result.output
    assert not (host.out / "up" / "index.html").exists()
    check = run([sys.executable, "-m", "miles_docs_plugin.cli", "check"], cwd=host.config)
    assert check.returncode == 1, check.output
    assert "mounts at 'up', but the host already has" in check.output


def test_names_the_engines_cannot_carry_are_reported_not_built(tmp_path: Path,
                                                               cache_dir: Path) -> None:
    pages: dict[str, str | bytes] = {
        "docs/tab\there.md": "# Tab\n",
        "docs/new\nline.md": "# Newline\n",
        "docs/" + "x" * 201 + ".md": "# Long\n",
        "docs/ok.md": "# Fine\n",
    }
    host = attack_host(tmp_path, "sphinx", pages)
    with untouched(host):
        result = host.build(strict=False)
    assert result.returncode == 0, result.output
    assert "Traceback" not in result.output
    assert "has a control character" in result.output
    assert "longer than 200 bytes" in result.output
    assert (host.out / "diffusion" / "ok.html").exists()
    assert sorted(p.name for p in (host.out / "diffusion").glob("*.html")) == [
        "index.html", "ok.html"]


def test_trust_full_gives_the_sandbox_up(tmp_path: Path, cache_dir: Path) -> None:
    """What `trust: full` means: the page is treated like the host's own (here: it publishes a
    host file), which is why it is opt-in and documented as such."""
    page = f"# Trusted\n\n{SPHINX_READS['literalinclude']}\n<b onclick=\"go()\">x</b>\n"
    host = attack_host(tmp_path, "sphinx", {"docs/attack.md": page},
                       source_extra="    trust: full\n")
    with untouched(host):
        result = host.build()
    assert result.returncode == 0, result.output
    assert SECRET in published(host)
    assert 'onclick="go()"' in host.site().page("diffusion/attack.html").text


@pytest.mark.parametrize("engine", ENGINES)
def test_an_attribute_opened_in_one_html_block_is_not_filled_by_the_next(
        tmp_path: Path, cache_dir: Path, engine: str) -> None:
    """Sphinx gets a page's raw HTML in pieces (one per HTML block): one that leaves an
    attribute open, harmless alone, made the quote and handler of the next piece live
    markup. Every element of the published page is read back: none has a handler."""
    from html.parser import HTMLParser

    page = ('# Split\n\n<div title="x\n\nhello\n\n<div>" onmouseover="alert(27)" '
            'style="position:fixed;inset:0">\n')
    host = attack_host(tmp_path, engine, {"docs/attack.md": page})
    with untouched(host):
        result = host.build(strict=False)
    assert result.returncode == 0, result.output
    handlers: list[tuple[str, str]] = []

    class Attributes(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            handlers.extend((tag, name) for name, _ in attrs if name.startswith("on"))

    for built in host.site().pages.values():
        Attributes().feed(built.text)
    assert handlers == []
