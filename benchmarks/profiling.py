"""Where the plugin's time goes: cProfile of one warm build, in-process, per engine.

The build runs in a child process (``python profiling.py ENGINE HOST OUT``) so that the
profile holds one clean build and nothing of the runner. The report lists the plugin's own
entry points (the adapter events) and the package functions with the most cumulative time, as
a share of the whole build.
"""

from __future__ import annotations

import cProfile
import io
import json
import pstats
import subprocess
import sys
from pathlib import Path
from typing import Any

PACKAGE = "miles_docs_plugin"


def _label(func: tuple[str, int, str]) -> str:
    filename, line, name = func
    if PACKAGE in filename:
        filename = PACKAGE + filename.split(PACKAGE, 1)[1]
    else:
        filename = Path(filename).name
    return f"{filename}:{line}({name})"


#: The adapters' modules that the engines call (their imports and event handlers).
ADAPTERS = ("mkdocs_plugin/__init__.py", "sphinx_ext/__init__.py", "sphinx_ext/build.py",
            "sphinx_ext/events.py")
#: Named stages of a plugin build: (file suffix, function name) -> what it is.
STAGES = {
    ("mkdocs_plugin/__init__.py", "<module>"): "importing the plugin",
    ("sphinx_ext/__init__.py", "<module>"): "importing the extension",
    ("core/plugins.py", "make_plugin_manager"): "plugin manager (pluggy, entry points)",
    ("core/collect/collect.py", "verify_entry"): "verifying the cache entry",
    ("core/collect/collect.py", "collect"): "collect (read, verify blob ids, front matter)",
    ("core/transform/scancache.py", "__init__"): "loading the scan cache",
    ("core/transform/components.py", "block_structure"): "components: markdown-it block parse",
    ("core/transform/components.py", "prepare_page"): "components (prepare_page)",
    ("core/transform/links.py", "transform_page"): "link rewriting (transform_page)",
    ("core/transform/links.py", "resolve_link"): "link classification",
    ("core/transform/links.py", "render"): "link rendering",
    ("core/transform/links.py", "_rel"): "posixpath.relpath in link rendering",
    ("core/context.py", "anchors"): "anchor maps",
    ("builtin/provenance.py", "mdp_transform_page"): "provenance banner",
    ("builtin/nav.py", "mdp_build_nav"): "nav",
    ("sphinx_ext/folder.py", "sync"): "writing the generated folder",
    ("sphinx_ext/events.py", "on_doctree_resolved"): "doctree-resolved (banner, permalinks)",
    ("sphinx_ext/events.py", "on_html_page_context"): "html-page-context",
    ("mkdocs_plugin/__init__.py", "on_page_markdown"): "on_page_markdown",
}


def stages(stats: pstats.Stats) -> list[tuple[str, float]]:
    """Cumulative seconds of the named stages (nested stages overlap), largest first."""
    raw = stats.stats  # type: ignore[attr-defined]
    out: dict[str, float] = {}
    for (filename, _line, name), v in raw.items():
        if PACKAGE not in filename:
            continue
        for (suffix, func), label in STAGES.items():
            if name == func and filename.endswith(suffix):
                out[label] = out.get(label, 0.0) + v[3]
    return sorted(out.items(), key=lambda kv: -kv[1])


def summarize(stats: pstats.Stats, total: float, top: int = 12) -> str:
    raw: dict[tuple[str, int, str], tuple[int, int, float, float, dict[Any, Any]]] = \
        stats.stats  # type: ignore[attr-defined]
    ours = [(func, v[3], v[2]) for func, v in raw.items() if PACKAGE in func[0]]
    # What the engine pays for: importing the adapter (it imports the core) and the adapter's
    # event handlers (everything else the package does runs inside those).
    entries = [(f, cum) for f, cum, _tot in ours
               if f[0].endswith(ADAPTERS)
               and (f[2] == "<module>" or not any(PACKAGE in c[0] for c in raw[f][4]))]
    entries.sort(key=lambda x: -x[1])
    ours.sort(key=lambda x: -x[1])
    calls = stats.total_calls  # type: ignore[attr-defined]
    lines = [f"whole build: {total:.2f}s (profiled, so slower than unprofiled), "
             f"{calls:,} function calls (a count does not depend on the machine's load)", "",
             "plugin cost as the engine sees it (adapter import + event handlers), cumulative:"]
    plugin_total = 0.0
    for f, cum in entries[:top]:
        plugin_total += cum
        lines.append(f"  {cum:7.3f}s {cum / total:6.1%}  {_label(f)}")
    lines += ["", f"  sum: {plugin_total:.3f}s = {plugin_total / total:.1%} of the build", "",
              "named stages (cumulative; nested stages overlap):"]
    for label, cum in stages(stats):
        lines.append(f"  {cum:7.3f}s {cum / total:6.1%}  {label}")
    lines += ["", "package functions by cumulative time (nested: they overlap):"]
    for f, cum, tot in ours[:top * 2]:
        lines.append(f"  {cum:7.3f}s cum {tot:7.3f}s own  {_label(f)}")
    buf = io.StringIO()
    stats.stream = buf  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(15)
    lines += ["", "whole build, top functions by own time:", buf.getvalue()]
    return "\n".join(lines)


def profile_build(engine: str, host: Path, srcdir: Path, out: Path) -> str:
    import time

    profiler = cProfile.Profile()
    t0 = time.perf_counter()
    if engine == "mkdocs":
        from mkdocs.commands.build import build
        from mkdocs.config import load_config

        profiler.enable()
        cfg = load_config(str(host / "mkdocs.yml"), site_dir=str(out))
        cfg.plugins.on_startup(command="build", dirty=False)
        build(cfg)
        cfg.plugins.on_shutdown()
        profiler.disable()
    else:
        from sphinx.cmd.build import build_main

        profiler.enable()
        code = build_main(["-q", "-b", "html", str(srcdir), str(out / "html"), "-d",
                           str(out / "doctrees")])
        profiler.disable()
        if code:
            raise SystemExit(f"sphinx-build failed ({code})")
    total = time.perf_counter() - t0
    st = pstats.Stats(profiler)
    return summarize(st, total) + "\n" + MARK + json.dumps(_top_stages(stages(st)))


MARK = "STAGES-JSON: "
#: Stages that contain others; the top-3 summary names the inner ones.
_OUTER = {"components (prepare_page)", "link rewriting (transform_page)"}


def _top_stages(found: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return [(label, round(sec, 3)) for label, sec in found if label not in _OUTER]


def run_profile(engine: str, host: Path, srcdir: Path, out: Path,
                env: dict[str, str]) -> tuple[str, list[tuple[str, float]]]:
    """The profile report of one build in a child process, and its top stages."""
    proc = subprocess.run([sys.executable, __file__, engine, str(host), str(srcdir), str(out)],
                          env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"profiling the {engine} build failed:\n{proc.stderr[-3000:]}")
    text, _, data = proc.stdout.rpartition(MARK)
    return text, [(str(a), float(b)) for a, b in json.loads(data)]


if __name__ == "__main__":
    import logging

    logging.disable(logging.WARNING)
    _engine, _host, _srcdir, _out = sys.argv[1:5]
    print(profile_build(_engine, Path(_host), Path(_srcdir), Path(_out)))
