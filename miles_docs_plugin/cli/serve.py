"""``miles-docs serve``: preview a Sphinx site, rebuilt incrementally on every edit.

MkDocs has ``mkdocs serve`` (the plugin tells it what to watch). Sphinx has no server of its
own, so this one builds with ``sphinx-build`` (incrementally: only changed pages are re-read),
serves the output on 127.0.0.1, watches the host sources, ``miles-docs.yml``, the lock file and
every local working copy, and rebuilds when one of them changes. Pages reload by themselves: the
server adds a tiny polling script to the HTML it serves (the files on disk stay as built).

Nothing the build writes is watched (the output folder and the generated section folders are
left out), so a rebuild never triggers another one.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.config import CONFIG_FILE, load_config
from ..core.errors import MilesDocsError
from ..core.hostpages import walk_host
from .common import Out, UsageError, file_stamps

RELOAD_PATH = "/__miles_docs__/build"
RELOAD_SCRIPT = (
    "<script>(function(){var n=null;setInterval(function(){fetch('" + RELOAD_PATH + "')"
    ".then(function(r){return r.text()}).then(function(t){if(n!==null&&t!==n)"
    "location.reload();n=t}).catch(function(){})},700)})();</script>"
)


def _walk(root: Path, skip: set[Path]) -> Iterator[Path]:
    return walk_host(root, lambda d: d.name.startswith("_") or d in skip)


class Watcher:
    """Polls modification times (no extra dependency, works on every file system)."""

    def __init__(self, srcdir: Path, outdir: Path) -> None:
        self.srcdir = srcdir
        self.skip = {outdir, srcdir / "_build"}
        self.extra: list[Path] = []
        config_file = srcdir / CONFIG_FILE
        if config_file.exists():
            try:
                config = load_config(config_file)
            except MilesDocsError:
                config = None
            if config is not None:
                self.extra.append(config.lock_file)
                self.extra += [s.local / s.docs_dir for s in config.sources if s.local]

    def snapshot(self) -> dict[Path, tuple[int, int]]:
        return file_stamps([self.srcdir, *self.extra], lambda root: _walk(root, self.skip))


class _Handler(http.server.SimpleHTTPRequestHandler):
    state: dict[str, int]

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == RELOAD_PATH:
            self._send(str(self.state["build"]).encode(), "text/plain")
            return
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if path.suffix == ".html" and path.is_file():
            body = path.read_bytes().replace(b"</body>", RELOAD_SCRIPT.encode() + b"</body>", 1)
            self._send(body, "text/html; charset=utf-8")
            return
        super().do_GET()


def _build(srcdir: Path, outdir: Path, out: Out) -> bool:
    started = time.monotonic()
    proc = subprocess.run(  # noqa: S603 - an argument list, never a shell
        # -N (no colour): CI systems often set FORCE_COLOR, which would wrap the summary line we
        # read back in escape codes.
        [sys.executable, "-m", "sphinx", "-b", "html", "--keep-going", "-N",
         str(srcdir), str(outdir)],
        capture_output=True, text=True, check=False)
    summary = next((line for line in proc.stdout.splitlines()
                    if line.startswith("updating environment")), "")
    for line in proc.stderr.splitlines():
        out.note(line)
    out.note(f"built in {time.monotonic() - started:.1f}s: {summary or 'no summary'}"
             + ("" if proc.returncode == 0 else f" (sphinx-build exited {proc.returncode})"))
    return proc.returncode == 0


def serve_sphinx(srcdir: Path, outdir: Path | None, *, host: str, port: int, out: Out,
                 once: bool = False) -> int:
    srcdir = srcdir.resolve()
    if not (srcdir / "conf.py").exists():
        raise UsageError(f"no conf.py in {srcdir} (pass the Sphinx source folder)")
    from ..engines import missing_modules

    missing = missing_modules("sphinx")
    if missing:
        raise UsageError(f"`miles-docs serve` builds with Sphinx, and {', '.join(missing)} is "
                         "not installed: pip install 'miles-docs-plugin[sphinx]'")
    outdir = (outdir or srcdir / "_build" / "html").resolve()
    watcher = Watcher(srcdir, outdir)
    # taken before the first build: an edit made while it runs starts the next one
    before = {} if once else watcher.snapshot()
    ok = _build(srcdir, outdir, out)
    if once:
        return 0 if ok else 1
    state = {"build": 1}
    handler = type("Handler", (_Handler,), {"state": state})
    server = http.server.ThreadingHTTPServer(
        (host, port), functools.partial(handler, directory=str(outdir)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    out.note(f"serving {outdir} on http://{host}:{server.server_address[1]}/ (Ctrl-C stops)")
    try:
        while True:
            time.sleep(0.5)
            now = watcher.snapshot()
            if now != before:
                changed = sorted(str(p) for p in set(now) ^ set(before)
                                 | {p for p in now if before.get(p) != now[p]})
                out.note(f"changed: {', '.join(changed[:3])}"
                         + (f" and {len(changed) - 3} more" if len(changed) > 3 else ""))
                _build(srcdir, outdir, out)
                state["build"] += 1
                before = watcher.snapshot()
    finally:
        server.shutdown()


def cmd_serve(args: argparse.Namespace, out: Out) -> int:
    return serve_sphinx(Path(args.srcdir), Path(args.outdir) if args.outdir else None,
                        host=args.host, port=args.port, out=out, once=args.once)


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser("serve", help="preview a Sphinx site, rebuilt on every edit",
                       description="Build a Sphinx site, serve it on HOST:PORT and rebuild it "
                       "(incrementally) when its sources, the config, the lock or a local "
                       "working copy change. For MkDocs use `mkdocs serve`.")
    s.add_argument("srcdir", nargs="?", default=".", help="Sphinx source folder (with conf.py)")
    s.add_argument("outdir", nargs="?", help="output folder (default: SRCDIR/_build/html)")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    s.set_defaults(func=cmd_serve)
