"""Smoke test of the benchmark runner, for CI: every row runs on a tiny configuration.

    python benchmarks/smoke_test.py

It runs ``benchmarks/run.py --smoke`` (about 30 s; results go to a temporary folder, not to
``benchmarks/results/``) and exits 1 when the runner fails, a row is missing from the table, or
a check that needs identical output fails (P6 compares rewritten pages with the reference).
It never judges speed: smoke sizes say nothing about it. The test suite can call this file as a
subprocess.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

with tempfile.TemporaryDirectory(prefix="miles-docs-smoke-") as out:
    proc = subprocess.run([sys.executable, str(HERE / "run.py"), "--smoke", "--out", out],
                          capture_output=True, text=True, timeout=900, check=False)
table = proc.stdout
problems = []
if proc.returncode != 0:
    problems.append(f"run.py --smoke exited with {proc.returncode}")
rows = {line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| P")}
missing = sorted({f"P{i}" for i in range(1, 10)} - rows)
if missing:
    problems.append(f"rows missing from the table: {', '.join(missing)}")
if "identical to reference: NO" in table or "FAILURES" in table:
    problems.append("an identity check failed")
if problems:
    print(table)
    print(proc.stderr[-5000:], file=sys.stderr)
    for problem in problems:
        print(f"smoke test: {problem}", file=sys.stderr)
    sys.exit(1)
print(table)
print("smoke test: all rows ran", file=sys.stderr)
