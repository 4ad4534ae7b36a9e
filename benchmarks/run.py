"""Benchmark runner for miles-docs-plugin: peers and baselines, side by side in one run.

    .venv/bin/python benchmarks/run.py            # the full run (see README.md for the time)
    .venv/bin/python benchmarks/run.py --smoke    # every row on a tiny configuration, < 1 min

Every build is a real ``mkdocs build`` / ``sphinx-build`` process; the variants of a row run
alternately, several repetitions, and the table reports medians and ratios. The table is
printed and written to ``benchmarks/results/`` (git-ignored). Generated upstreams, hosts and
caches live in a temporary folder that is removed at the end (``--keep`` keeps it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from measure import machine, table  # noqa: E402
from rows import Bench, Options  # noqa: E402

ALL_ROWS = [f"P{i}" for i in range(1, 10)]


def parse_args(argv: list[str] | None = None) -> tuple[Options, argparse.Namespace]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--smoke", action="store_true",
                   help="tiny sizes, 1 repetition, every row (for CI: checks that all runs and "
                        "that outputs are identical where they must be; no speed assertions)")
    p.add_argument("--reps", type=int, help="repetitions per variant (default 5; smoke 1)")
    p.add_argument("--pages", type=int, help="pages of the synthetic upstream (default 1000)")
    p.add_argument("--p7-sources", type=int, help="P7: number of sources (default 20)")
    p.add_argument("--p7-pages", type=int,
                   help="P7: pages per source (default 500; the full 1000 takes ~25 min)")
    p.add_argument("--p7-reps", type=int, help="P7: repetitions (default 3)")
    p.add_argument("--p9-pages", type=int, help="P9 (peak memory): pages (default 5000)")
    p.add_argument("--mkdocs-theme", default="minimal", choices=("minimal", "mkdocs", "material"),
                   help="theme of the MkDocs hosts (default: a one-template theme, so the "
                        "theme's own per-page navigation does not hide the plugin's cost)")
    p.add_argument("--rows", default=",".join(ALL_ROWS),
                   help="comma-separated subset of P1..P9 (default: all)")
    p.add_argument("--profile", action="store_true",
                   help="also profile one warm build per engine (cProfile) and append it")
    p.add_argument("--workdir", type=Path,
                   help="where to generate upstreams and hosts (default: a new temp dir)")
    p.add_argument("--keep", action="store_true", help="keep the generated files")
    p.add_argument("--no-snapshot", action="store_true",
                   help="use the package as installed instead of a copy taken at the start "
                        "(the copy keeps one version for the whole run while you edit)")
    p.add_argument("--out", type=Path, default=HERE / "results",
                   help="folder for the results file (default: benchmarks/results)")
    args = p.parse_args(argv)
    rows = {r.strip().upper() for r in args.rows.split(",") if r.strip()}
    unknown = rows - set(ALL_ROWS)
    if unknown:
        p.error(f"unknown rows: {', '.join(sorted(unknown))}")
    if args.smoke:
        o = Options(smoke=True, reps=1, pages=24, p7_sources=3, p7_pages=12, p7_reps=1,
                    p9_pages=30)
    else:
        o = Options()
    o.reps = args.reps or o.reps
    o.pages = args.pages or o.pages
    o.p7_sources = args.p7_sources or o.p7_sources
    o.p7_pages = args.p7_pages or o.p7_pages
    o.p7_reps = args.p7_reps or o.p7_reps
    o.p9_pages = args.p9_pages or o.p9_pages
    o.theme = args.mkdocs_theme
    o.rows = rows
    o.profile = args.profile
    return o, args


def snapshot_package(work: Path) -> Path:
    """Copy ``miles_docs_plugin/`` into the work folder; it is imported from there."""
    dest = work / "package"
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(HERE.parent / "miles_docs_plugin", dest / "miles_docs_plugin",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def package_version(root: Path) -> str:
    """Content hash of the package sources measured, and the git commit they sit on."""
    digest = hashlib.sha1(usedforsecurity=False)
    for path in sorted((root / "miles_docs_plugin").rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    repo = HERE.parent

    def git(*args: str) -> str:
        proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                              check=False)
        return proc.stdout.strip() if proc.returncode == 0 else "?"

    dirty = git("status", "--porcelain", "--", "miles_docs_plugin")
    return (f"sources {digest.hexdigest()[:12]} on commit {git('rev-parse', '--short', 'HEAD')}"
            + (" + uncommitted changes" if dirty and dirty != "?" else ""))


def main(argv: list[str] | None = None) -> int:
    options, args = parse_args(argv)
    started = time.perf_counter()
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f}s] {message}", file=sys.stderr, flush=True)

    work = args.workdir or Path(tempfile.mkdtemp(prefix="miles-docs-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    log(f"working in {work}")
    package_root = HERE.parent
    bench = Bench(options, work, log)
    if not args.no_snapshot:
        package_root = snapshot_package(work)
        sys.path.insert(0, str(package_root))
        bench.env["PYTHONPATH"] = os.pathsep.join(
            [str(package_root), *filter(None, [bench.env.get("PYTHONPATH")])])
    version = package_version(package_root)
    log(f"measuring miles_docs_plugin {version}")
    try:
        bench.prepare()
        bench.mkdocs_rows()
        bench.sphinx_rows()
        bench.fetch_bytes_row()
        bench.incremental_row()
        bench.throughput_rows()
        bench.many_sources_rows()
        bench.import_row()
        bench.memory_row()
        if options.profile:
            bench.profile()
    finally:
        bench.close()
        if not args.keep and args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    elapsed = time.perf_counter() - started
    mode = "smoke" if options.smoke else "full"
    header = [
        f"# miles-docs benchmark ({mode}), {dt.datetime.now():%Y-%m-%d %H:%M}",
        "",
        f"- machine: {machine()}",
        f"- package: miles_docs_plugin {version}",
        f"- sizes: corpus v2 ({bench.targets['corpus'].pages} pages), synthetic "
        f"{bench.targets['synthetic'].pages} pages, P7 {options.p7_sources} sources x "
        f"{options.p7_pages} pages, P9 {options.p9_pages} pages; repetitions {options.reps} "
        f"(P7: {options.p7_reps}); "
        f"MkDocs theme {options.theme}; rows {', '.join(sorted(options.rows))}",
        f"- run time: {elapsed / 60:.1f} min",
        "",
    ]
    report = "\n".join(header) + table(bench.rows) + "\n"
    if bench.failures:
        report += "\nFAILURES:\n\n" + "\n".join(f"- {f}" for f in bench.failures) + "\n"
    if bench.profiles:
        report += "\n# Profiles\n\n" + "\n".join(bench.profiles)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{stamp}-{mode}.md"
    path.write_text(report, encoding="utf-8")
    (args.out / f"latest-{mode}.md").write_text(report, encoding="utf-8")
    print(report)
    log(f"written to {path}")
    return 1 if bench.failures else 0


if __name__ == "__main__":
    sys.exit(main())
