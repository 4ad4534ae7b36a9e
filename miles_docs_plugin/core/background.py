"""One job in a thread: what a build starts before work it can overlap with (reading the scan
cache while the sources are fetched, fetching changed blobs while unchanged files are
reused)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def in_background(job: Callable[[], T], name: str = "miles-docs") -> Callable[[], T]:
    """Start ``job`` in a thread; the function returned waits for its result (or raises what
    it raised)."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append((True, job()))
        except BaseException as exc:  # handed to the caller below
            box.append((False, exc))

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()

    def result() -> T:
        thread.join()
        ok, value = box[0]
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]

    return result
