"""The benchmark runner cannot rot: every row runs on its smoke configuration.

This judges no speed (smoke sizes say nothing about it); it fails when the runner fails, a row
is missing from its table, or a check that needs identical output fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_benchmark_runner_runs_every_row() -> None:
    # FORCE_COLOR as on CI systems: the runner parses Sphinx's output
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "smoke_test.py")],
                          env={**os.environ, "FORCE_COLOR": "1"},
                          capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for row in ("P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9"):
        assert f"| {row} |" in proc.stdout
    assert "not installed" not in proc.stdout  # the P3 peer comes with the dev extra
