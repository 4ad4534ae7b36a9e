"""One job in a thread: what a build starts before work it can overlap with (reading the scan
cache while the sources are fetched, fetching changed blobs while unchanged files are
reused, loading the modules of the page steps while git runs)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

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


class Deferred(Generic[T]):
    """The result of ``job``: computed in a thread from :meth:`start` (the build is about to
    wait, on git, and the job can overlap that wait), else here when it is first asked for.

    A build that waits on nothing (a warm one) so runs it in its own thread, in turn: two
    threads running Python only take turns, and contend (a warm 1,000-page build's
    ``on_files`` took 150-227 ms with the scan cache read in a thread beside the collect,
    141-150 ms with it read in turn)."""

    def __init__(self, job: Callable[[], T], name: str = "miles-docs") -> None:
        self._job = job
        self._name = name
        self._lock = threading.Lock()
        self._result: Callable[[], T] | None = None

    def start(self) -> None:
        with self._lock:
            if self._result is None:
                self._result = in_background(self._job, self._name)

    def __call__(self) -> T:
        with self._lock:
            if self._result is None:
                value = self._job()
                self._result = lambda: value
        return self._result()


#: Modules :func:`preload` has started loading in this process.
_PRELOADING: set[str] = set()


def preload(modules: Iterable[str]) -> None:
    """Import ``modules``, in order, in a thread, but those already imported or started by an
    earlier call: for a build about to wait (on git) before it runs the code that imports them,
    so that loading them overlaps the wait instead of following it. A module that fails to
    import here fails again where it is used, and is reported there. Two threads importing
    at once are safe while no module imports itself back (an import cycle, which
    ``tests/test_architecture.py`` forbids): Python would then stop one with a deadlock."""
    todo = [name for name in modules if name not in sys.modules and name not in _PRELOADING]
    if not todo:
        return
    _PRELOADING.update(todo)

    def load() -> None:
        for name in todo:
            try:
                # ``__import__`` (an import statement's path), which ``python -X importtime``
                # lists, unlike ``importlib.import_module``
                __import__(name)
            except Exception:  # reported where the module is used
                continue

    threading.Thread(target=load, name="miles-docs-preload", daemon=True).start()
