"""The measurements P1-P9: each builds its hosts, runs the variants alternately, makes rows."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hosts
from gitserve import CountingProxy, GitDaemon
from hosts import Host, SourceSpec
from measure import Row, alternate, median, paired, ratio_of_overheads, spread
from synth import Upstream, change_one_page, git, make_upstream, tree_bytes

CORPUS_V2 = "e93b2a50dc36edce1be6d6a5aae5fd6664535de4"
CORPUS_WEB = "https://github.com/radixark/miles_diffusion"
HERE = Path(__file__).resolve().parent
# ../shared/corpus next to the repository (as in the tests), or MILES_DOCS_CORPUS.
CORPUS_DIR = Path(os.environ.get("MILES_DOCS_CORPUS") or HERE.parent.parent / "shared" / "corpus")
#: Every docs tree of the corpus (label, folder below the corpus).
CORPUS_TREES = (("miles_diffusion v1", "miles_diffusion/v1/docs"),
                ("miles_diffusion v2", "miles_diffusion/v2/docs"),
                ("miles_host", "miles_host/tree/docs"), ("mem0", "mem0/tree/docs"))


@dataclass
class Scanners:
    """The scanner builds use, and the reference it must equal byte for byte (P6).

    ``scan(body, line_offset=n)`` is what a cold build runs on every page; inside
    ``reference()`` every scan, the link rules' included, runs the reference instead. The
    one place to adapt when the scanner changes.
    """

    name: str
    scan: Callable[..., Any]
    reference: Callable[[], contextlib.AbstractContextManager[None]]


#: the Sphinx adapter's log line after a pin move (``sphinx_ext/restamp.py``)
RESTAMPED_RE = re.compile(r"(\d+) unchanged page\(s\) now name the new pin")


def scanners() -> Scanners:
    import functools
    import inspect

    from miles_docs_plugin.core.transform import markdown

    original: Any = markdown.scan
    if "reference" in inspect.signature(original).parameters:
        # A scanner with its own reference mode (``scan(text, reference=True)``): the links
        # transform looks ``markdown.scan`` up on every call, so swapping it reaches every scan.
        @contextlib.contextmanager
        def reference() -> Iterator[None]:
            setattr(markdown, "scan", functools.partial(original, reference=True))  # noqa: B010
            try:
                yield
            finally:
                setattr(markdown, "scan", original)  # noqa: B010

        return Scanners("the package's scanner (its reference: markdown-it-py on the whole "
                        "page, `scan(reference=True)`)", original, reference)

    @contextlib.contextmanager
    def rules_reference() -> Iterator[None]:
        # markdown-it with every block rule enabled: none of the scanner's "this page cannot
        # contain X" shortcuts
        saved = dict(markdown.OPTIONAL_RULES)
        markdown.OPTIONAL_RULES.clear()
        try:
            yield
        finally:
            markdown.OPTIONAL_RULES.update(saved)

    return Scanners("markdown-it-py (the reference parser, with block rules left out where a "
                    "page cannot start them)", original, rules_reference)


@dataclass
class Options:
    smoke: bool = False
    reps: int = 5
    pages: int = 1000
    p7_sources: int = 20
    p7_pages: int = 500  #: the full 1,000 takes ~25 min for P7 alone on 2 cores
    p7_reps: int = 3
    theme: str = "minimal"
    rows: set[str] = field(default_factory=lambda: {f"P{i}" for i in range(1, 10)})
    profile: bool = False
    p9_pages: int = 5000  #: pages of the upstream of the memory row


@dataclass
class Target:
    """One upstream as the benchmark uses it."""

    label: str  #: "corpus v2", "synthetic 1000"
    key: str  #: folder / served name
    repo: Path
    commit: str
    web_url: str
    pages: int
    docs_bytes: int


class Bench:
    def __init__(self, options: Options, work: Path,
                 log: Callable[[str], None]) -> None:
        self.o = options
        self.work = work
        self.log = log
        self.cache = work / "cache"
        # CI is left out: whether a build runs as on a CI runner is a variant of the rows.
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith("MILES_DOCS_") and k not in ("PYTHONDONTWRITEBYTECODE",
                                                                      "CI")}
        # Byte code is cached (in the work folder, so nothing is written next to any source):
        # an installed package has its .pyc files, and an environment that forbids writing them
        # would make every build recompile the plugin, a cost no user pays.
        self.env.update({"NO_MKDOCS_2_WARNING": "1", "MILES_DOCS_CACHE": str(self.cache),
                         "MILES_DOCS_STATE": str(work / "state"),
                         "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
                         "PYTHONPYCACHEPREFIX": str(work / "pycache")})
        self.static_hosts: dict[tuple[str, str], Host] = {}
        self.fresh_runs = 0
        self.daemon = GitDaemon(work / "served")
        self.targets: dict[str, Target] = {}
        self.rows: list[Row] = []
        self.failures: list[str] = []
        self.profiles: list[str] = []
        self.plugin_hosts: dict[tuple[str, str], Host] = {}

    # -- upstreams -------------------------------------------------------------------------

    def prepare(self) -> None:
        up = self.work / "upstreams"
        up.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        corpus = up / "corpus"
        subprocess.run(["bash", str(CORPUS_DIR / "make_upstream.sh"), str(corpus)], check=True,
                       capture_output=True)
        self.targets["corpus"] = Target("corpus v2", "corpus", corpus, CORPUS_V2, CORPUS_WEB,
                                        _count_pages(corpus, CORPUS_V2),
                                        tree_bytes(corpus, CORPUS_V2, "docs"))
        syn = make_upstream(up / "synthetic", pages=self.o.pages, seed=1)
        self.targets["synthetic"] = Target(f"synthetic {syn.pages}", "synthetic", syn.path,
                                           syn.commit, hosts.WEB_URL, syn.pages, syn.docs_bytes)
        self.synthetic = syn
        self.daemon.start()
        for t in self.targets.values():
            self.daemon.publish(t.repo, t.key)
        self.log(f"upstreams ready in {time.perf_counter() - t0:.1f}s: "
                 + ", ".join(f"{t.label} ({t.pages} pages, {t.docs_bytes / 1e6:.2f} MB docs)"
                             for t in self.targets.values())
                 + f"; git daemon on port {self.daemon.port}")

    def spec(self, target: Target, name: str = "diffusion") -> SourceSpec:
        return SourceSpec(name, self.daemon.url(target.key), target.commit, target.web_url)

    def close(self) -> None:
        self.daemon.stop()

    # -- helpers ---------------------------------------------------------------------------

    def _timed(self, host: Host, cpu: list[float],
               rss: list[float] | None = None) -> Callable[[], float]:
        """A timed build (wall seconds); its CPU seconds are appended to ``cpu``."""
        def run() -> float:
            out = host.build()
            cpu.append(out.cpu)
            if rss is not None:
                rss.append(out.max_rss)
            return out.seconds
        return run

    def _run(self, variants: dict[str, Host], reps: int,
             rss: dict[str, list[float]] | None = None,
             ) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
        """Alternating timed builds: (wall seconds, CPU seconds) per variant; the peak RSS of
        each build goes to ``rss`` when given."""
        cpu: dict[str, list[float]] = {n: [] for n in variants}
        if rss is not None:
            rss.update({n: [] for n in variants})
        wall = alternate({n: self._timed(h, cpu[n], rss[n] if rss is not None else None)
                          for n, h in variants.items()}, reps, self.log)
        return wall, cpu

    def _fresh_cache(self, base: Path) -> Callable[[], dict[str, str]]:
        """Cold as on a machine that keeps a cache folder, before its first build: a new empty
        ``MILES_DOCS_CACHE`` and scan-cache state folder for every build."""
        def fresh() -> dict[str, str]:
            self.fresh_runs += 1
            run = base / f"{self.fresh_runs:03d}"
            return {"MILES_DOCS_CACHE": str(run / "cache"),
                    "MILES_DOCS_STATE": str(run / "state")}
        return fresh

    def _fresh_runner(self, base: Path, made: list[Path]) -> Callable[[], dict[str, str]]:
        """Cold as on a CI runner: ``CI=true``, no ``MILES_DOCS_CACHE``, and new empty home,
        XDG cache and state and temp folders for every build (listed in ``made``, so the row
        can check that the build left nothing in them)."""
        def fresh() -> dict[str, str]:
            self.fresh_runs += 1
            run = base / f"{self.fresh_runs:03d}"
            env = {"CI": "true", "HOME": str(run / "home"),
                   "XDG_CACHE_HOME": str(run / "xdg-cache"),
                   "XDG_STATE_HOME": str(run / "xdg-state"), "TMPDIR": str(run / "tmp")}
            for key in ("HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "TMPDIR"):
                Path(env[key]).mkdir(parents=True)
            made.append(run)
            return env
        return fresh

    def _warm(self, label: str, variants: dict[str, Host]) -> dict[str, int]:
        """One untimed build of each variant (fills the cache, the OS caches, the scan cache).

        In smoke mode the first timed repetition stands in for it (the plugin's cold build
        already filled its caches).
        """
        warnings: dict[str, int] = {}
        if self.o.smoke:
            return warnings
        for name, host in variants.items():
            out = host.build()
            warnings[name] = out.warnings
            self.log(f"  warm-up {label} {name}: {out.seconds:.2f}s, {out.warnings} warnings")
        return warnings

    # -- P1 + P3: MkDocs -------------------------------------------------------------------

    def mkdocs_rows(self) -> None:
        want_p1, want_p3 = "P1" in self.o.rows, "P3" in self.o.rows
        if not (want_p1 or want_p3):
            return
        multirepo = _has("mkdocs_multirepo_plugin")
        for target in self.targets.values():
            base = self.work / "mkdocs" / target.key
            spec = self.spec(target)
            self.log(f"P1/P3 MkDocs, {target.label}")
            plugin = hosts.mkdocs_plugin_host(base / "plugin", [spec], self.env, self.o.theme)
            self.plugin_hosts[("mkdocs", target.key)] = plugin
            variants: dict[str, Host] = {"plugin": plugin}
            first = plugin.build()
            self.log(f"  cold plugin build (fetch + scans): {first.seconds:.2f}s")
            variants["static"] = hosts.mkdocs_static_host(base / "static", plugin, self.o.theme)
            self.static_hosts[("mkdocs", target.key)] = variants["static"]
            # The raw copy: the baseline of multirepo (P3), and for the corpus, whose pages
            # need no conversion but `admonition`, what a build without the plugin costs (P1).
            if want_p3 or target.key == "corpus":
                variants["raw"] = hosts.mkdocs_raw_host(base / "raw", target.repo, target.commit,
                                                        "diffusion", self.env, self.o.theme)
            runner_runs: list[Path] = []
            if want_p3:
                cold = hosts.mkdocs_plugin_host(base / "cold", [spec], self.env, self.o.theme)
                cold.fresh = self._fresh_cache(base / "cold-runs")
                variants["cold"] = cold
                runner_env = {k: v for k, v in self.env.items()
                              if k not in ("MILES_DOCS_CACHE", "MILES_DOCS_STATE")}
                ci = hosts.mkdocs_plugin_host(base / "ci", [spec], runner_env, self.o.theme)
                ci.fresh = self._fresh_runner(base / "ci-runs", runner_runs)
                variants["ci"] = ci
                # The README's CI recipe: a new runner whose MILES_DOCS_CACHE is restored
                # (filled by the warm-up build), with no scan cache (no MILES_DOCS_STATE).
                kept = hosts.mkdocs_plugin_host(
                    base / "ci-kept", [spec],
                    {**runner_env, "MILES_DOCS_CACHE": str(base / "ci-kept-cache")},
                    self.o.theme)
                kept.fresh = self._fresh_runner(base / "ci-kept-runs", [])
                variants["ci-kept"] = kept
                if multirepo:
                    variants["multirepo"] = hosts.mkdocs_multirepo_host(
                        base / "multirepo", spec.url, "diffusion", self.env, self.o.theme)
            warnings = self._warm(target.label, variants)
            times, cpu = self._run(variants, self.o.reps)
            med = {n: median(t) for n, t in times.items()}
            n = len(times["plugin"])
            left = [str(p) for run in runner_runs for p in run.rglob("*") if p.is_file()]
            if left:
                self.failures.append(f"P3 {target.label}: a CI build (no MILES_DOCS_CACHE) left "
                                     f"{len(left)} files in the user folders, e.g. {left[0]}")
            if want_p1:
                row = _ratio_row("P1", "MkDocs warm build, plugin ÷ static copy (plugin's "
                                 f"output, with its extensions) ({target.label})",
                                 times, cpu, f"warm cache, theme {self.o.theme}")
                if warnings.get("plugin"):
                    row.notes.append(f"the plugin build printed {warnings['plugin']} warnings")
                row.check()
                self._explain(row, med["plugin"] - med["static"], variants["static"])
                self.add(row)
                if "raw" in times and target.key == "corpus":
                    row = _ratio_row("P1", "MkDocs warm build, plugin ÷ raw copy (upstream "
                                     f"pages as they are) ({target.label})", times, cpu,
                                     f"warm cache, theme {self.o.theme}; the raw copy has "
                                     "only `admonition`", base="raw")
                    row.check()
                    self._explain(row, med["plugin"] - med["raw"], variants["static"])
                    self.add(row)
            if want_p3:
                self._overhead_rows(target, times, cpu, n, multirepo, warnings,
                                    variants["static"])
        if want_p1:
            self._plain_row()

    def _plain_row(self) -> None:
        """P1 as the goal states it: a warm build ÷ a raw copy of pages that need no
        conversion. Corpus v2's pages need some (lists and a fence in a list item written for
        CommonMark: the raw copy renders them wrongly, without superfences); these synthetic
        pages (:func:`synth.render_page` ``plain``) render the same copied as they are."""
        up = self.work / "upstreams" / "plain"
        if up.exists():
            shutil.rmtree(up)
        syn = make_upstream(up, pages=self.o.pages, seed=3, plain=True, nondocs_factor=0.5)
        target = Target(f"plain synthetic {syn.pages}", "plain", syn.path, syn.commit,
                        hosts.WEB_URL, syn.pages, syn.docs_bytes)
        self.daemon.publish(target.repo, target.key)
        base = self.work / "mkdocs" / target.key
        self.log(f"P1 MkDocs, {target.label}")
        plugin = hosts.mkdocs_plugin_host(base / "plugin", [self.spec(target)], self.env,
                                          self.o.theme)
        plugin.build()
        variants = {"plugin": plugin,
                    "raw": hosts.mkdocs_raw_host(base / "raw", target.repo, target.commit,
                                                 "diffusion", self.env, self.o.theme)}
        warnings = self._warm(target.label, variants)
        times, cpu = self._run(variants, self.o.reps)
        row = _ratio_row("P1", "MkDocs warm build, plugin ÷ raw copy of pages that need no "
                         f"conversion ({target.label})", times, cpu,
                         f"warm cache, theme {self.o.theme}; both with only `admonition` (the "
                         "plugin turns on no other extension for these pages)", base="raw")
        if warnings.get("plugin") or warnings.get("raw"):
            row.notes.append(f"warnings: plugin {warnings.get('plugin', 0)}, raw "
                             f"{warnings.get('raw', 0)}")
        row.check()
        self._explain(row, median(times["plugin"]) - median(times["raw"]), None)
        self.add(row)

    def _overhead_rows(self, target: Target, times: dict[str, list[float]],
                       cpu: dict[str, list[float]], n: int, multirepo: bool,
                       warnings: dict[str, int], static: Host) -> None:
        """P3: what miles-docs adds to a build ÷ what mkdocs-multirepo adds, cold and warm."""
        cases = (
            ("ci", "cold, CI runner (CI=true, no MILES_DOCS_CACHE: throwaway cache)", "≤ 1.0"),
            ("ci-kept", "CI runner with the README recipe's persisted MILES_DOCS_CACHE (no scan "
             "cache)", "≤ 1.0"),
            ("cold", "cold, fresh MILES_DOCS_CACHE and MILES_DOCS_STATE", "≤ 1.0"),
            ("plugin", "warm (persisted cache; multirepo has none and clones)", "≤ 0.1"),
        )
        for variant, how, goal in cases:
            what = f"{how}: (plugin - static copy) ÷ (multirepo - raw copy) ({target.label})"
            if not multirepo:
                row = Row("P3", what, None, "x", goal, "mkdocs-multirepo-plugin is not installed")
                row.notes.append("install it: `.venv/bin/pip install mkdocs-multirepo-plugin`")
                self.add(row)
                continue
            row = ratio_of_overheads("P3", what, goal, times, cpu, variant, "static",
                                     "multirepo", "raw")
            row.detail += f"; median of {n}, upstream over git daemon on 127.0.0.1"
            if variant == "plugin" and row.met is False:
                row.notes.append(
                    f"miles-docs' warm overhead is mostly fixed per build (importing the "
                    f"plugin, starting the pipeline{_pipeline_note(static)}); "
                    "multirepo's is a shallow blob-less clone over git daemon on every build")
            if variant == "plugin" and (warnings.get("multirepo") or warnings.get("raw")):
                row.notes.append(
                    f"multirepo/raw builds printed {warnings.get('multirepo', 0)}/"
                    f"{warnings.get('raw', 0)} warnings (upstream links it does not rewrite)")
            self.add(row)

    def _explain(self, row: Row, overhead: float, static: Host | None = None) -> None:
        """Why a build row missed: the overhead, and what the warm pipeline itself takes."""
        if row.met is not False:
            return
        row.notes.append(f"overhead {overhead:.3f}s per build{_pipeline_note(static)}. "
                         "Where it goes: see Profiles (`--profile`)")

    # -- P2: Sphinx ------------------------------------------------------------------------

    def sphinx_rows(self) -> None:
        if "P2" not in self.o.rows:
            return
        for target in self.targets.values():
            base = self.work / "sphinx" / target.key
            spec = self.spec(target)
            self.log(f"P2 Sphinx, {target.label}")
            plugin = hosts.sphinx_plugin_host(base / "plugin", [spec], self.env)
            self.plugin_hosts[("sphinx", target.key)] = plugin
            first = plugin.build()
            self.log(f"  cold plugin build: {first.seconds:.2f}s, {first.warnings} warnings")
            static = hosts.sphinx_static_host(base / "static", plugin, [spec])
            variants = {"plugin": plugin, "static": static}
            warnings = self._warm(target.label, variants)
            times, cpu = self._run(variants, self.o.reps)
            med = {n: median(t) for n, t in times.items()}
            row = _ratio_row("P2", f"Sphinx build, extension ÷ static copy ({target.label})",
                             times, cpu, "warm cache, alabaster, fresh output dir")
            if warnings.get("plugin") != warnings.get("static"):
                row.notes.append(f"warnings: plugin {warnings['plugin']}, static "
                                 f"{warnings['static']}")
            row.check()
            self._explain(row, med["plugin"] - med["static"])
            self.add(row)

    # -- P4: cold fetch bytes --------------------------------------------------------------

    def fetch_bytes_row(self) -> None:
        if "P4" not in self.o.rows:
            return
        target = self.targets["synthetic"]
        syn = self.synthetic
        self.log(f"P4 cold fetch bytes, {target.label}")
        base = self.work / "p4"
        base.mkdir(parents=True, exist_ok=True)
        with CountingProxy(self.daemon.port) as proxy:
            url = self.daemon.url(target.key, proxy.port)
            # miles-docs: the real cold path (pipeline → mdp_fetch → cache → checkout_into).
            from miles_docs_plugin.core.config import load_config
            from miles_docs_plugin.core.engine import Engine
            from miles_docs_plugin.core.pipeline import build

            folder = base / "host"
            spec = SourceSpec("diffusion", url, target.commit, target.web_url)
            hosts._miles_docs_files(folder, [spec])
            env = {**self.env, "MILES_DOCS_CACHE": str(base / "cold-cache")}
            proxy.reset()
            t0 = time.perf_counter()
            with hosts._environ(env):
                result = build(load_config(folder / "miles-docs.yml", env=env), Engine(),
                               use_scan_cache=False)
            seconds = time.perf_counter() - t0
            ours_down, ours_up = proxy.down, proxy.up
            pages = sum(len(s.pages) for s in result.sections.values())
            # For comparison: a plain full clone, and what mkdocs-multirepo's clone transfers.
            proxy.reset()
            git(base, "clone", "-q", "--no-checkout", url, str(base / "full"))
            full = proxy.down
            proxy.reset()
            git(base, "clone", "-q", "--branch", "main", "--depth", "1", "--filter=blob:none",
                "--sparse", url, str(base / "multirepo-style"))
            git(base / "multirepo-style", "sparse-checkout", "set", "--no-cone", "docs/*",
                "mkdocs.yml")
            mr = proxy.down
        ratio = ours_down / target.docs_bytes
        row = Row("P4", f"cold fetch, bytes received ÷ docs tree bytes ({target.label})", ratio,
                  "x", "≤ 1.5",
                  f"{ours_down / 1e6:.2f} MB received (+{ours_up / 1e3:.0f} kB sent) for a "
                  f"{target.docs_bytes / 1e6:.2f} MB docs tree ({pages} pages) in a repository "
                  f"with {syn.nondocs_bytes / 1e6:.1f} MB outside docs/ "
                  f"({syn.nondocs_bytes / target.docs_bytes:.1f}x); cold fetch {seconds:.2f}s")
        row.notes.append(f"for comparison, over the same counting proxy: full clone "
                         f"{full / 1e6:.2f} MB ({full / target.docs_bytes:.2f}x), "
                         f"mkdocs-multirepo's sparse clone {mr / 1e6:.2f} MB "
                         f"({mr / target.docs_bytes:.2f}x). Git packs are zlib-compressed, so "
                         "text-only docs can come in under 1x")
        self.add(row)

    # -- P5: Sphinx rebuild after a pin move -----------------------------------------------

    def incremental_row(self) -> None:
        """A pin move that changes 1 page ÷ the same 1-page edit in a static copy.

        Each repetition commits a one-sentence change to the same upstream page, moves the pin
        to it and rebuilds (fetching the new commit, as a user would); the static copy (the
        plugin's generated folder as a plain Sphinx site) gets the same sentence in its copy of
        that page and rebuilds. Both keep their output between builds. Pages re-read come from
        Sphinx's "updating environment" line, pages written from the HTML files whose
        modification time changed.
        """
        if "P5" not in self.o.rows:
            return
        target = self.targets["synthetic"]
        self.log(f"P5 Sphinx rebuild after a pin move, {target.label}")
        base = self.work / "p5"
        clone = base / "upstream"
        base.mkdir(parents=True, exist_ok=True)
        git(base, "clone", "-q", str(target.repo.resolve()), str(clone))
        self.daemon.publish(clone, "p5")
        spec = SourceSpec("diffusion", self.daemon.url("p5"), target.commit, target.web_url)
        plugin = hosts.sphinx_plugin_host(base / "host", [spec], self.env)
        full = plugin.build(quiet=False)
        static = hosts.sphinx_static_host(base / "static", plugin, [spec])
        static.build(quiet=False)
        noop = plugin.build(clean=False, quiet=False)
        pages = sorted((clone / "docs").rglob("page-*.md"))
        edited = pages[len(pages) // 2].relative_to(clone / "docs").as_posix() if pages \
            else "index.md"
        static_page = static.srcdir / spec.name / edited
        reread: dict[str, list[int]] = {"plugin": [], "static": []}
        written: dict[str, list[int]] = {"plugin": [], "static": []}
        restamped: dict[str, list[int]] = {"plugin": [], "static": []}
        cpu: dict[str, list[float]] = {"plugin": [], "static": []}

        def rebuild(host: Host, name: str) -> float:
            before = _html_mtimes(host)
            out = host.build(clean=False, quiet=False)
            after = _html_mtimes(host)
            counts = hosts.reread_counts(out.output)
            if counts is None:
                self.failures.append(f"P5 {name}: no 'updating environment' line in the output")
            reread[name].append(counts[0] + counts[1] if counts else -1)
            changed = sum(1 for p, t in after.items() if before.get(p) != t)
            # the plugin's restamp says how many unchanged pages it brought to the new pin in
            # place (a same-size replacement of the pin's bytes): they are not pages Sphinx wrote
            stamp = RESTAMPED_RE.search(out.output)
            restamped[name].append(int(stamp.group(1)) if stamp else 0)
            written[name].append(changed - restamped[name][-1])
            cpu[name].append(out.cpu)
            return out.seconds

        def move_pin() -> float:
            commit = change_one_page(clone, edited)
            self.daemon.update(clone, "p5")
            hosts.set_pin(plugin, "diffusion", commit)
            return rebuild(plugin, "plugin")

        def edit_static() -> float:
            text = static_page.read_text("utf-8")
            static_page.write_text(text.rstrip("\n") + "\n\nThis sentence was added upstream.\n",
                                   "utf-8")
            return rebuild(static, "static")

        times = alternate({"plugin": move_pin, "static": edit_static}, self.o.reps, self.log)
        med = {k: median(v) for k, v in times.items()}
        cmed = {k: median(v) for k, v in cpu.items()}
        n = len(times["plugin"])
        what = f"{edited} edited upstream ({target.label}, {target.pages} pages)"
        row = Row("P5", f"Sphinx rebuild after a pin move that changes 1 page ÷ static copy with "
                  f"the same 1-page edit ({target.label})", med["plugin"] / med["static"], "x",
                  "≤ 1.2",
                  f"plugin {med['plugin']:.2f}s ({spread(times['plugin'])}, incl. fetching the "
                  f"new pin), static {med['static']:.2f}s ({spread(times['static'])}); median "
                  f"of {n}; {paired(times['plugin'], times['static'])}; CPU time ratio "
                  f"{cmed['plugin'] / cmed['static']:.3f}; {what}; full build {full.seconds:.1f}s"
                  f" ({_fmt_counts(hosts.reread_counts(full.output))}), no-op rebuild "
                  f"{noop.seconds:.1f}s ({_fmt_counts(hosts.reread_counts(noop.output))})")
        self.add(row)
        most = max(written["plugin"])
        row = Row("P5", f"Sphinx rebuild after a pin move that changes 1 page: HTML pages "
                  f"written by Sphinx ({target.label})", most, "pages", "≤ 3",
                  f"pages Sphinx wrote per rebuild (HTML files of documents whose mtime "
                  f"changed, less those the plugin restamped; genindex and search are written "
                  f"on every build and not counted): plugin {written['plugin']}, static copy "
                  f"{written['static']}; the largest counts. Restamped in place (the old pin's "
                  f"bytes in the banner and permalinks replaced, same size): plugin "
                  f"{restamped['plugin']}")
        if most > 3:
            row.notes.append("Sphinx wrote more than the changed pages: something on every page "
                             "still depends on the pin")
        self.add(row)
        most = max(reread["plugin"])
        row = Row("P5", f"Sphinx rebuild after a pin move that changes 1 page: docs re-read "
                  f"({target.label})", most, "docs", "≤ 1",
                  f"docs re-read per rebuild (added + changed of 'updating environment'): "
                  f"plugin {reread['plugin']}, static copy {reread['static']}")
        self.add(row)

    # -- P6: link rewriting throughput -----------------------------------------------------

    def throughput_rows(self) -> None:
        if "P6" not in self.o.rows:
            return
        for target in self.targets.values():
            self.log(f"P6 link rewriting throughput, {target.label}")
            self._throughput(target)
        self.log("P6 scanner vs the reference on every corpus tree")
        self._corpus_identity()

    def _corpus_identity(self) -> None:
        """The scanner's result equals the reference's on every page of every corpus tree
        (the scan is what the rewriting depends on: equal scans, equal pages), and its
        throughput over all of them."""
        from miles_docs_plugin.core.collect.collect import parse_front_matter
        from miles_docs_plugin.core.errors import MilesDocsError
        from miles_docs_plugin.core.transform import markdown

        scanner = scanners()
        bodies: list[tuple[str, str, int]] = []  #: (tree, body, front matter lines)
        for tree, folder in CORPUS_TREES:
            for path in sorted((CORPUS_DIR / folder).rglob("*")):
                if path.suffix not in (".md", ".mdx") or not path.is_file():
                    continue
                text = path.read_text("utf-8")
                try:
                    _, start, lines = parse_front_matter(text)
                except MilesDocsError:
                    start, lines = 0, 0
                bodies.append((tree, text[start:], lines))
        with scanner.reference():
            # looked up on the module inside the block: ``scanner.scan`` is the fast function
            # captured before the switch, and would be compared with itself
            reference = [markdown.scan(body, line_offset=n) for _, body, n in bodies]
        times: list[float] = []
        differ: dict[str, int] = {}
        for _ in range(1 if self.o.smoke else max(self.o.reps, 3)):
            t0 = time.perf_counter()
            found = [scanner.scan(body, line_offset=n) for _, body, n in bodies]
            times.append(time.perf_counter() - t0)
            for (tree, _, _), got, want in zip(bodies, found, reference, strict=True):
                if got != want:
                    differ[tree] = differ.get(tree, 0) + 1
        mb = sum(len(body.encode()) for _, body, _ in bodies) / 1e6
        per_tree = ", ".join(f"{tree} {sum(1 for t, _, _ in bodies if t == tree)}"
                             for tree, _ in CORPUS_TREES)
        row = Row("P6", "scanner output = markdown-it reference, every page of every corpus "
                  "tree", sum(differ.values()), "pages differing", "= 0",
                  f"{len(bodies)} pages ({per_tree}), {mb:.2f} MB; scan throughput "
                  f"{mb / median(times):.2f} MB/s (median of {len(times)}); scanner: "
                  f"{scanner.name}")
        if differ:
            self.failures.append(f"P6: the scanner differs from the reference on {differ}")
            row.notes.append(f"pages differing by tree: {differ}")
        self.add(row)

    def _throughput(self, target: Target) -> None:
        from mkdocs.config import load_config as mkdocs_config

        from miles_docs_plugin import hookimpl
        from miles_docs_plugin.builtin import links
        from miles_docs_plugin.core.config import load_config
        from miles_docs_plugin.core.pipeline import build, gc_paused
        from miles_docs_plugin.core.transform.scancache import ScanCache
        from miles_docs_plugin.mkdocs_plugin import MkDocsEngine

        folder = self.work / "p6" / target.key
        hosts._miles_docs_files(folder, [self.spec(target)])
        hosts.mkdocs_static_yml(folder)
        engine = MkDocsEngine(mkdocs_config(str(folder / "mkdocs.yml")), {"index.md"})
        prepared: dict[tuple[str, str], str] = {}

        class Capture:
            @hookimpl(tryfirst=True)
            def mdp_transform_page(self, page: Any, ctx: Any) -> None:
                prepared[(page.source, page.path)] = page.content

        with hosts._environ(self.env):
            result = build(load_config(folder / "miles-docs.yml", env=self.env), engine,
                           plugins=[Capture()], use_scan_cache=False)
        ctx = result.ctx
        pages = [p for s in result.sections.values() for p in s.pages.values()]
        total = sum(len(prepared[(p.source, p.path)].encode()) for p in pages)

        cpu_t: list[float] = []  #: CPU time of every run_links (the last one's is the run's)

        def run_links(scans: ScanCache | None) -> tuple[float, dict[tuple[str, str], str]]:
            for s in result.sections.values():
                s.diagnostics.clear()
                s.assets.clear()
            for p in pages:
                p.content = prepared[(p.source, p.path)]
                p.scan = None
            ctx._anchors.clear()
            ctx.scans = scans
            t0, c0 = time.perf_counter(), time.process_time()
            with gc_paused():  # as the pipeline runs its transform step
                ctx.scan_all(pages)  # as the pipeline does before the first page's transform
                for p in pages:
                    links.mdp_transform_page(page=p, ctx=ctx)
            cpu_t.append(time.process_time() - c0)
            return time.perf_counter() - t0, {(p.source, p.path): p.content for p in pages}

        # Reference: the markdown-it reference scanner (see scanners()), no scan cache.
        scanner = scanners()
        with scanner.reference():
            _, reference = run_links(None)
        cache_file = folder / "scans.json"
        warm_fill = ScanCache(cache_file)
        _, filled = run_links(warm_fill)
        warm_fill.save()
        reps = max(self.o.reps, 3)
        cold_t: list[float] = []
        cold_cpu: list[float] = []
        warm_t: list[float] = []
        scan_t: list[float] = []
        scan_cpu: list[float] = []
        identical = filled == reference
        for _ in range(reps):
            dt, out = run_links(None)
            cold_t.append(dt)
            cold_cpu.append(cpu_t[-1])
            identical &= out == reference
            t0 = time.perf_counter()
            cache = ScanCache(cache_file)  # loading the JSON is part of a warm build
            dt, out = run_links(cache)
            warm_t.append(time.perf_counter() - t0)
            identical &= out == reference
            bodies = [(prepared[(p.source, p.path)][p.body_start:], p.body_line) for p in pages]
            t0, c0 = time.perf_counter(), time.process_time()
            for body, line in bodies:
                scanner.scan(body, line_offset=line)
            scan_t.append(time.perf_counter() - t0)
            scan_cpu.append(time.process_time() - c0)
        changed = sum(1 for k, v in reference.items() if v != prepared[k])
        n_links = sum(len(p.scan.links) for p in pages if p.scan is not None)
        if not identical:
            self.failures.append(f"P6 {target.label}: rewritten pages differ from the reference")
        mb = total / 1e6
        detail = (f"{len(pages)} pages, {mb:.2f} MB, {n_links} links, {changed} pages changed "
                  f"(MkDocs engine); median of {reps}; identical to reference: "
                  f"{'yes' if identical else 'NO'}")
        cold = Row("P6", f"cold link rewriting (scan + resolve + rewrite), no cache of any "
                   f"kind ({target.label})", mb / median(cold_t), "MB/s", "≥ 20",
                   detail + f"; CPU time {mb / median(cold_cpu):.2f} MB/s; scan alone "
                   f"{mb / median(scan_t):.2f} MB/s (CPU {mb / median(scan_cpu):.2f}); "
                   f"scanner: {scanner.name}")
        # No goal of its own: what a build that kept its scan cache pays instead.
        warm = Row("P6", f"link rewriting with the ScanCache warm ({target.label})",
                   mb / median(warm_t), "MB/s", "",
                   f"{median(warm_t) * 1000:.0f} ms incl. loading the cache file "
                   f"({cache_file.stat().st_size / 1e6:.2f} MB JSON); " + detail)
        if cold.value is not None and cold.value < 20:
            share = min(1.0, median(scan_t) / median(cold_t))
            cold.notes.append(f"the scan is ~{share:.0%} of the time (scan alone "
                              f"{mb / median(scan_t):.2f} MB/s, {scanner.name})")
        self.add(cold)
        self.add(warm)

    # -- P7: many sources ------------------------------------------------------------------

    def many_sources_rows(self) -> None:
        if "P7" not in self.o.rows:
            return
        n, m = self.o.p7_sources, self.o.p7_pages
        label = f"{n} sources x {m} pages"
        self.log(f"P7 {label}")
        base = self.work / "p7"
        t0 = time.perf_counter()
        specs: list[SourceSpec] = []
        ups: list[Upstream] = []
        for i in range(n):
            up = make_upstream(base / "upstreams" / f"s{i:02d}", pages=m, seed=100 + i,
                               name=f"s{i:02d}")
            self.daemon.publish(up.path, f"p7-s{i:02d}")
            ups.append(up)
            specs.append(SourceSpec(f"s{i:02d}", self.daemon.url(f"p7-s{i:02d}"), up.commit,
                                    f"{hosts.WEB_URL}-{i:02d}"))
        self.log(f"  {n} upstreams generated and served in {time.perf_counter() - t0:.1f}s")
        docs_mb = sum(u.docs_bytes for u in ups) / 1e6

        # Cold fetch, serial vs parallel, with the core's own fetch function.
        from miles_docs_plugin.core.config import parse_config

        config = parse_config({"sources": [{"name": s.name, "repo": s.url} for s in specs]},
                              base_dir=base, config_file=None, env=self.env)
        commits = {s.name: s.commit for s in specs}
        workers = min(8, n)
        fetch_reps = 1 if self.o.smoke else max(self.o.p7_reps, 5)
        ftimes = _fetch_speedup(config.sources, commits, base / "fetch", workers, fetch_reps,
                                self.log)
        fmed = {k: median(v) for k, v in ftimes.items()}
        speedup = fmed["serial"] / fmed["parallel"]
        frow = Row("P7", f"cold fetch of {n} sources, serial ÷ parallel ({m} pages each)",
                   speedup, "x", "≥ 1.8",
                   f"serial {fmed['serial']:.2f}s ({spread(ftimes['serial'])}), parallel "
                   f"({workers} threads, as the pipeline) {fmed['parallel']:.2f}s "
                   f"({spread(ftimes['parallel'])}); median of {len(ftimes['serial'])}, "
                   f"`checkout_into` over git daemon into the work folder, {os.cpu_count()} "
                   "cores")
        shm = Path("/dev/shm")
        if not self.o.smoke and shm.is_dir() and os.access(shm, os.W_OK) and \
                shutil.disk_usage(shm).free > 2 * fetch_reps * n * m * 10_000:
            scratch = Path(tempfile.mkdtemp(prefix="miles-docs-bench-", dir=shm))
            try:
                mtimes = _fetch_speedup(config.sources, commits, scratch, workers, fetch_reps,
                                        self.log)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            mmed = {k: median(v) for k, v in mtimes.items()}
            frow.notes.append(
                f"the same into a tmpfs (/dev/shm, no disk): serial {mmed['serial']:.2f}s, "
                f"parallel {mmed['parallel']:.2f}s, speedup "
                f"{mmed['serial'] / mmed['parallel']:.2f}x")

        # MkDocs build with every source, plugin vs static copy.
        plugin = hosts.mkdocs_plugin_host(base / "plugin", specs, self.env, self.o.theme)
        cold = plugin.build()
        self.log(f"  cold plugin build (parallel fetch of {n} + scans): {cold.seconds:.1f}s")
        static = hosts.mkdocs_static_host(base / "static", plugin, self.o.theme)
        variants = {"plugin": plugin, "static": static}
        # No separate warm-up round here (each build is minutes long): the cold build above
        # filled the plugin's caches, and the static copy was just written (page cache warm).
        warnings = {"plugin": cold.warnings}
        times, cpu = self._run(variants, self.o.p7_reps)
        med = {k: median(v) for k, v in times.items()}
        brow = _ratio_row("P7", f"MkDocs build, plugin ÷ static copy ({label})", times, cpu,
                          f"warm cache, {docs_mb:.0f} MB of docs; cold build "
                          f"{cold.seconds:.1f}s", digits=1)
        if warnings.get("plugin"):
            brow.notes.append(f"the plugin build printed {warnings['plugin']} warnings")
        brow.check()
        self._explain(brow, med["plugin"] - med["static"], static)
        if frow.value is not None and frow.value < 1.8:
            frow.notes.append(
                "git (client and the local daemon's pack-objects) is CPU-bound on this "
                f"{os.cpu_count()}-core machine: the server shares the cores with the clients, "
                "so the threads cannot overlap network waits as they would against a remote")
        self.add(brow)
        self.add(frow)

    # -- P8: import + plugin manager -------------------------------------------------------

    def import_row(self) -> None:
        """What loading the plugin costs each build, in a fresh interpreter per measurement.

        The probe first imports what the engine itself has loaded before it loads a plugin
        (for MkDocs: its build command, config, plugin registry with its entry-point scan, and
        Python-Markdown), then times importing the adapter and making the plugin manager. A
        second figure comes from ``-X importtime`` of real warm builds: the modules a plugin
        build imports that its static copy's build does not (lazy imports included).
        """
        if "P8" not in self.o.rows:
            return
        self.log("P8 import + plugin manager")
        reps = 3 if self.o.smoke else max(2 * self.o.reps, 15)
        # A developer's machine that has built before: the user's state folder (found as a
        # build finds it, with no MILES_DOCS_STATE: under XDG_STATE_HOME, here a folder of
        # the run) exists (the first build that keeps a scan cache makes it), where the plugin
        # group's entry points are kept between processes; the untimed first probe of each
        # engine fills it.
        xdg = Path(self.env["MILES_DOCS_STATE"]).parent / "p8-xdg-state"
        (xdg / "miles-docs").mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in self.env.items() if k != "MILES_DOCS_STATE"}
        env.update({"XDG_STATE_HOME": str(xdg), "CI": "false"})
        found: dict[str, list[tuple[float, float, float, float]]] = {}
        for engine in ("mkdocs", "sphinx"):
            self._probe(engine, env)  # compiles the byte code, as an installed package has it
            found[engine] = [self._probe(engine, env) for _ in range(reps)]
        totals = {e: [a + b for a, b, _, _ in v] for e, v in found.items()}
        cpu = {e: [c + d for _, _, c, d in v] for e, v in found.items()}
        mk = found["mkdocs"]
        value = median(totals["mkdocs"]) * 1000
        row = Row("P8", "import + plugin-manager time per build (MkDocs adapter)", value, "ms",
                  "≤ 15",
                  f"import {median([r[0] for r in mk]) * 1000:.1f} ms + plugin manager "
                  f"{median([r[1] for r in mk]) * 1000:.1f} ms (median of {reps} fresh "
                  f"interpreters, perf_counter, after what MkDocs imports before its plugins; "
                  f"range {min(totals['mkdocs']) * 1000:.1f}-{max(totals['mkdocs']) * 1000:.1f}"
                  f" ms); CPU time (process_time) {median(cpu['mkdocs']) * 1000:.1f} ms; "
                  f"Sphinx extension: {median(totals['sphinx']) * 1000:.1f} ms, CPU "
                  f"{median(cpu['sphinx']) * 1000:.1f} ms")
        lazy = self._lazy_imports()
        if lazy:
            row.detail += f"; {lazy}"
        self.add(row)

    def _probe(self, engine: str, env: dict[str, str]) -> tuple[float, float, float, float]:
        proc = subprocess.run([sys.executable, "-c", IMPORT_PROBE, engine], env=env,
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"the import probe failed:\n{proc.stderr[-3000:]}")
        first, second, cpu_first, cpu_second = json.loads(proc.stdout.strip().splitlines()[-1])
        return float(first), float(second), float(cpu_first), float(cpu_second)

    def _lazy_imports(self) -> str:
        """Milliseconds of self import time (``-X importtime``) of the modules a warm plugin
        build of the corpus imports and its static copy's build does not."""
        plugin = self.plugin_hosts.get(("mkdocs", "corpus"))
        static = self.static_hosts.get(("mkdocs", "corpus"))
        if plugin is None or static is None:
            return ""
        reps = 1 if self.o.smoke else max(self.o.reps, 3)
        extra: list[float] = []
        names: set[str] = set()
        for _ in range(reps):
            mods = {}
            for name, host in (("plugin", plugin), ("static", static)):
                if host.outdir.exists():
                    shutil.rmtree(host.outdir)
                cmd = host.command()
                code, _, _, out = hosts.run_measured([cmd[0], "-X", "importtime", *cmd[1:]],
                                                     host.root, host.env)
                if code != 0:
                    raise RuntimeError(f"-X importtime build failed:\n{out[-3000:]}")
                mods[name] = {m.group(2): int(m.group(1)) for m in IMPORTTIME_RE.finditer(out)}
            new = set(mods["plugin"]) - set(mods["static"])
            names |= new
            extra.append(sum(mods["plugin"][m] for m in new) / 1000)
        ours = sum(1 for m in names if m.startswith("miles_docs_plugin"))
        return (f"-X importtime of warm builds (corpus v2): the plugin build imports "
                f"{len(names)} modules the static copy's build does not ({ours} of this "
                f"package), {median(extra):.1f} ms of self time (median of {reps}; importtime "
                "inflates it)")

    # -- P9: peak memory -------------------------------------------------------------------

    def memory_row(self) -> None:
        if "P9" not in self.o.rows:
            return
        pages = self.o.p9_pages
        base = self.work / "p9"
        self.log(f"P9 peak RSS, {pages} pages")
        # Little outside docs/: only the docs tree matters to memory, and it saves time.
        up = make_upstream(base / "upstream", pages=pages, seed=9, nondocs_factor=0.1,
                           name="p9")
        self.daemon.publish(up.path, "p9")
        spec = SourceSpec("diffusion", self.daemon.url("p9"), up.commit, hosts.WEB_URL)
        plugin = hosts.mkdocs_plugin_host(base / "plugin", [spec], self.env, self.o.theme)
        cold = plugin.build()
        self.log(f"  cold plugin build: {cold.seconds:.1f}s, {cold.max_rss / 1e6:.0f} MB")
        static = hosts.mkdocs_static_host(base / "static", plugin, self.o.theme)
        reps = 1 if self.o.smoke else min(self.o.reps, 3)
        rss: dict[str, list[float]] = {}
        times, cpu = self._run({"plugin": plugin, "static": static}, reps, rss)
        mem = {k: median(v) for k, v in rss.items()}
        med = {k: median(v) for k, v in times.items()}
        cmed = {k: median(v) for k, v in cpu.items()}
        row = Row("P9", f"peak RSS of a warm MkDocs build, plugin ÷ static copy ({up.pages} "
                  "pages)", mem["plugin"] / mem["static"], "x", "≤ 1.10",
                  f"plugin {mem['plugin'] / 1e6:.0f} MB ({_mb_range(rss['plugin'])}), static "
                  f"{mem['static'] / 1e6:.0f} MB ({_mb_range(rss['static'])}); median of "
                  f"{reps}, ru_maxrss of each build process (os.wait4); wall "
                  f"{med['plugin']:.1f}s vs {med['static']:.1f}s, CPU "
                  f"{cmed['plugin']:.1f}s vs {cmed['static']:.1f}s; cold plugin build "
                  f"{cold.max_rss / 1e6:.0f} MB; {up.docs_bytes / 1e6:.1f} MB of docs")
        self.add(row)

    # -- profiles --------------------------------------------------------------------------

    def profile(self) -> None:
        """cProfile of one warm plugin build per engine and upstream; notes on missed rows."""
        from profiling import run_profile

        for target in self.targets.values():
            for engine in ("mkdocs", "sphinx"):
                host = self.plugin_hosts.get((engine, target.key))
                if host is None:
                    base = self.work / engine / target.key / "plugin"
                    host = (hosts.mkdocs_plugin_host(base, [self.spec(target)], self.env,
                                                     self.o.theme) if engine == "mkdocs" else
                            hosts.sphinx_plugin_host(base, [self.spec(target)], self.env))
                    host.build()  # fill the cache: the profile is of a warm build
                self.log(f"profiling a warm {engine} build of {target.label}")
                out = self.work / "profile" / engine / target.key
                shutil.rmtree(out, ignore_errors=True)
                if host.outdir.exists():
                    shutil.rmtree(host.outdir)
                text, stages = run_profile(engine, host.root, host.srcdir, out, self.env)
                self.profiles.append(
                    f"## {engine}, warm build, {target.label}\n\n```\n{text}```\n")
                top = ", ".join(f"{name} {sec:.3f}s" for name, sec in stages[:3])
                keys = ("P1", "P3", "P7") if engine == "mkdocs" else ("P2",)
                for row in self.rows:
                    mine = target.label in row.what or (row.key == "P7" and
                                                        target.key == "synthetic")
                    if row.key in keys and row.met is False and top and mine:
                        row.notes.append(
                            f"profile of a warm {engine} build ({target.label}; cProfile, so "
                            f"inflated): the plugin's top stages are {top}")

    # -- rows ------------------------------------------------------------------------------

    def add(self, row: Row) -> None:
        row.check()
        self.rows.append(row)
        self.log(f"  => {row.key} {row.what}: {row.value} ({row.detail})")


def _ratio_row(rid: str, title: str, times: dict[str, list[float]],
               cpu: dict[str, list[float]], tail: str, digits: int = 2,
               base: str = "static", goal: str = "≤ 1.05") -> Row:
    """A "plugin ÷ baseline" build row from the alternated timings of both variants."""
    med = {n: median(t) for n, t in times.items()}
    cmed = {n: median(t) for n, t in cpu.items()}
    return Row(rid, title, med["plugin"] / med[base], "x", goal,
               f"plugin {med['plugin']:.{digits}f}s ({spread(times['plugin'])}), {base} "
               f"{med[base]:.{digits}f}s ({spread(times[base])}); median of "
               f"{len(times['plugin'])}; {paired(times['plugin'], times[base])}; "
               f"{_cpu(cmed, base)}; {tail}")


def _cpu(cmed: dict[str, float], base: str = "static") -> str:
    """The CPU-time view of a plugin-vs-baseline row (steadier than wall time on a busy host)."""
    if not cmed.get(base):
        return "CPU time n/a"
    return (f"CPU time ratio {cmed['plugin'] / cmed[base]:.3f} (plugin "
            f"{cmed['plugin']:.2f}s, {base} {cmed[base]:.2f}s)")


def _pipeline_note(static: Host | None) -> str:
    t = static.pipeline_timings if static is not None else {}
    if not t.get("total"):
        return ""
    parts = ", ".join(f"{k} {v:.2f}s" for k, v in t.items() if k != "total")
    return (f"; the warm pipeline alone, measured in-process, takes {t['total']:.2f}s"
            + (f": {parts}" if parts else ""))


def _fetch_speedup(sources: Any, commits: dict[str, str], scratch: Path, workers: int,
                   reps: int, log: Callable[[str], None]) -> dict[str, list[float]]:
    """Cold fetches of every source with the core's own ``checkout_into``, serial vs threads.

    Every run writes into a fresh folder; nothing is deleted until all runs are done (deleting
    hundreds of MB between runs makes the disk, not git, the thing measured).
    """
    from miles_docs_plugin.core.source.checkout import checkout_into

    runs = 0

    def fresh(kind: str) -> Path:
        nonlocal runs
        runs += 1
        folder = scratch / f"{runs:03d}-{kind}"
        folder.mkdir(parents=True)
        return folder

    def fetch_one(source: Any, where: Path) -> None:
        checkout_into(Path(tempfile.mkdtemp(prefix=f"{source.name}-", dir=where)), source,
                      commits[source.name])

    def serial() -> float:
        where = fresh("serial")
        t = time.perf_counter()
        for source in sources:
            fetch_one(source, where)
        return time.perf_counter() - t

    def parallel() -> float:
        where = fresh("parallel")
        t = time.perf_counter()
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(lambda s: fetch_one(s, where), sources))
        return time.perf_counter() - t

    try:
        return alternate({"serial": serial, "parallel": parallel}, reps, log)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _mb_range(xs: list[float]) -> str:
    return f"{min(xs) / 1e6:.0f}-{max(xs) / 1e6:.0f} MB"


#: One line of ``-X importtime``: self microseconds, cumulative, the module (indented).
IMPORTTIME_RE = re.compile(r"^import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)\s*$", re.M)

#: Run in a fresh interpreter: ``python -c IMPORT_PROBE mkdocs|sphinx`` prints the seconds of
#: importing the adapter and of making the plugin manager, wall then CPU, as JSON.
IMPORT_PROBE = """
import json, sys, time
if sys.argv[1] == "mkdocs":
    # what `mkdocs build` has loaded before it loads a plugin
    import markdown, mkdocs.__main__, mkdocs.commands.build, mkdocs.config.defaults
    import mkdocs.plugins, mkdocs.structure.files
    mkdocs.plugins.get_plugins()
    t0, c0 = time.perf_counter(), time.process_time()
    import miles_docs_plugin.mkdocs_plugin
else:
    # what sphinx-build has loaded before it loads this extension (myst_parser is listed
    # first, as in every host)
    import sphinx.application, sphinx.builders.html, sphinx.cmd.build
    import myst_parser.parsers.sphinx_, myst_parser.sphinx_ext.main
    t0, c0 = time.perf_counter(), time.process_time()
    import miles_docs_plugin.sphinx_ext
t1, c1 = time.perf_counter(), time.process_time()
from miles_docs_plugin.core.plugins import make_plugin_manager
make_plugin_manager()
t2, c2 = time.perf_counter(), time.process_time()
print(json.dumps([t1 - t0, t2 - t1, c1 - c0, c2 - c1]))
"""


def _html_mtimes(host: Host) -> dict[str, int]:
    """Every page of a Sphinx host's output and its modification time (ns): the HTML files
    of documents, not the index and search pages Sphinx writes again on every build."""
    out = host.outdir / "html"
    if not out.is_dir():
        return {}
    return {str(p): p.stat().st_mtime_ns for p in out.rglob("*.html")
            if p.relative_to(out).as_posix() not in SPHINX_SPECIAL_PAGES}


#: pages every Sphinx HTML build writes whatever changed
SPHINX_SPECIAL_PAGES = frozenset({"genindex.html", "search.html", "py-modindex.html"})


def _fmt_counts(counts: tuple[int, int, int] | None) -> str:
    if counts is None:
        return "not reported"
    return f"{counts[0]} added, {counts[1]} changed, {counts[2]} removed"


def _count_pages(repo: Path, commit: str) -> int:
    names = git(repo, "ls-tree", "-r", "--name-only", commit, "docs").splitlines()
    return sum(1 for n in names if n.endswith((".md", ".mdx")))


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


