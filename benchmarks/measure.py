"""Alternating repetitions, medians, ratios, the results table and the machine description."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata


def alternate(variants: dict[str, Callable[[], float]], reps: int,
              log: Callable[[str], None] = print) -> dict[str, list[float]]:
    """Run every variant ``reps`` times, interleaved (the order rotates each repetition)."""
    names = list(variants)
    times: dict[str, list[float]] = {n: [] for n in names}
    for r in range(reps):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            t = variants[name]()
            times[name].append(t)
            log(f"    rep {r + 1}/{reps} {name}: {t:.3f}s")
    return times


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def paired(a: list[float], b: list[float]) -> str:
    """Median and range of the per-repetition ratios a/b (each pair ran back to back)."""
    ratios = [x / y for x, y in zip(a, b, strict=True) if y > 0]
    if not ratios:
        return "-"
    return f"per-repetition ratio median {median(ratios):.3f} ({min(ratios):.2f}-{max(ratios):.2f})"


def spread(xs: list[float]) -> str:
    if not xs:
        return "-"
    return f"{min(xs):.2f}-{max(xs):.2f}"


@dataclass
class Row:
    key: str  #: P1 … P7
    what: str
    value: float | None
    unit: str  #: "x" for ratios, "MB/s", "docs", ...
    target: str  #: "≤ 1.05"
    detail: str = ""  #: medians and sizes behind the value
    met: bool | None = None
    notes: list[str] = field(default_factory=list)
    #: why the value cannot be judged (a difference within the noise): never "met"
    inconclusive: str = ""

    def check(self) -> None:
        if self.inconclusive:
            self.met = None
            return
        if self.value is None or not self.target:
            return
        op, bound = self.target.split()
        b = float(bound)
        self.met = {"≤": self.value <= b, "≥": self.value >= b, "=": self.value == b}[op]

    def verdict(self) -> str:
        if self.inconclusive:
            return f"inconclusive: {self.inconclusive}"
        if self.met is None:
            return "n/a"
        if self.met:
            return "met"
        op, bound = self.target.split()
        b = float(bound)
        if self.value is None:
            return "missed"
        if op == "=":
            return f"missed ({self.value:g} vs {b:g})"
        pct = (self.value / b - 1) * 100 if b else float("inf")
        return f"missed by {abs(pct):.0f}%"


#: A difference of two medians smaller than this share of the baseline build (or 20 ms) is
#: within what this kind of machine does between two runs of the same build.
NOISE_SHARE = 0.05
NOISE_FLOOR = 0.02


def ratio_of_overheads(key: str, what: str, target: str, times: dict[str, list[float]],
                       cpu: dict[str, list[float]], ours: str, our_base: str, theirs: str,
                       their_base: str) -> Row:
    """(ours - our_base) ÷ (theirs - their_base), of the medians, in wall and CPU time.

    The ratio of two differences says nothing when either difference is within the noise:
    a denominator near zero makes it huge or infinite, a negative one flips its sign, and a
    negative numerator (our variant faster than its own baseline) is noise, not a result.
    Such a row is "inconclusive", never "met".
    """
    med = {n: median(t) for n, t in times.items()}
    cmed = {n: median(t) for n, t in cpu.items()}
    a, b = med[ours] - med[our_base], med[theirs] - med[their_base]
    ca, cb = cmed[ours] - cmed[our_base], cmed[theirs] - cmed[their_base]
    noise = max(NOISE_FLOOR, NOISE_SHARE * med[their_base])
    value = a / b if b > 0 else None
    row = Row(key, what, value, "x", target,
              f"{ours} {med[ours]:.2f}s - {our_base} {med[our_base]:.2f}s = {a:+.3f}s vs "
              f"{theirs} {med[theirs]:.2f}s - {their_base} {med[their_base]:.2f}s = {b:+.3f}s; "
              f"CPU time {ca:+.3f}s vs {cb:+.3f}s"
              + (f" = {ca / cb:.3f}x" if cb > 0 else "") + " (git daemon's own CPU not counted)")
    if b <= noise:
        row.inconclusive = (f"the denominator ({b:+.3f}s) is within the noise "
                            f"(≤ {noise:.3f}s)")
    elif a < 0:
        row.inconclusive = (f"the numerator ({a:+.3f}s) is negative: the difference is "
                            "within the noise")
    row.check()
    return row


def fmt_value(row: Row) -> str:
    if row.value is None:
        return "-"
    if row.unit == "x":
        return f"{row.value:.3f}x"
    if row.unit == "MB/s":
        return f"{row.value:.2f} MB/s"
    return f"{row.value:g} {row.unit}".strip()


def table(rows: list[Row]) -> str:
    out = ["| row | measurement | value | target | verdict | detail |",
           "| --- | --- | ---: | --- | --- | --- |"]
    for r in rows:
        out.append(f"| {r.key} | {r.what} | {fmt_value(r)} | {r.target or '-'} | "
                   f"{r.verdict()} | {r.detail} |")
    notes = [f"- **{r.key}** ({r.what}): {n}" for r in rows for n in r.notes]
    if notes:
        out += ["", "Notes:", "", *notes]
    return "\n".join(out)


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _mem_gb() -> str:
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            kb = int(fh.readline().split()[1])
        return f"{kb / 1024 / 1024:.0f} GB"
    except (OSError, ValueError, IndexError):
        return "?"


def machine() -> str:
    gitv = subprocess.run(["git", "--version"], capture_output=True, text=True,
                          check=False).stdout.strip()
    return (f"{platform.system()} {platform.release()}, {_cpu()}, {os.cpu_count()} cores, "
            f"{_mem_gb()} RAM; Python {sys.version.split()[0]}, {gitv}; "
            f"mkdocs {_version('mkdocs')}, Sphinx {_version('sphinx')}, "
            f"myst-parser {_version('myst-parser')}, markdown-it-py {_version('markdown-it-py')}, "
            f"mkdocs-multirepo-plugin {_version('mkdocs-multirepo-plugin')}, "
            f"miles-docs-plugin {_version('miles-docs-plugin')}")
