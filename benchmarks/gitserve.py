"""Serve repositories over ``git://`` on 127.0.0.1 and count the bytes a client receives.

:class:`GitDaemon` runs ``git daemon`` on a free port for bare mirrors it prepares (with
``uploadpack.allowFilter`` and ``uploadpack.allowAnySHA1InWant``, as GitHub and GitLab allow), so
clones go through the real protocol instead of a local copy. :class:`CountingProxy` is a tiny
TCP relay in front of it that counts the bytes in each direction: what a fetch really costs on
the wire (pack data, protocol framing and all).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

from synth import GIT_ENV, git


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"git daemon exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"git daemon did not listen on port {port}")


class GitDaemon:
    """``git daemon`` serving the bare repositories below ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    def publish(self, repo: Path, name: str) -> str:
        """Mirror ``repo`` as ``<root>/<name>.git`` (packed, filters allowed); return its URL."""
        bare = self.root / f"{name}.git"
        if bare.exists():
            shutil.rmtree(bare)
        git(self.root, "clone", "-q", "--bare", "--no-local", str(repo.resolve()), str(bare))
        for key in ("uploadpack.allowFilter", "uploadpack.allowAnySHA1InWant",
                    "uploadpack.allowReachableSHA1InWant"):
            git(bare, "config", key, "true")
        git(bare, "repack", "-a", "-d", "-q")
        return self.url(name)

    def update(self, repo: Path, name: str) -> None:
        """Push every branch of ``repo`` to its mirror."""
        git(repo, "push", "-q", "--force", str((self.root / f"{name}.git").resolve()),
            "refs/heads/*:refs/heads/*")

    def url(self, name: str, port: int | None = None) -> str:
        return f"git://127.0.0.1:{port or self.port}/{name}.git"

    def start(self) -> GitDaemon:
        self.port = free_port()
        env = {**os.environ, **GIT_ENV}
        self.proc = subprocess.Popen(
            ["git", "daemon", "--reuseaddr", "--export-all", "--informative-errors",
             f"--base-path={self.root.resolve()}", "--listen=127.0.0.1", f"--port={self.port}",
             "--max-connections=64", str(self.root.resolve())],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_port(self.port, self.proc)
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def __enter__(self) -> GitDaemon:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class CountingProxy:
    """A TCP relay 127.0.0.1:<port> → 127.0.0.1:<target> counting bytes both ways."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.down = 0  #: bytes server → client
        self.up = 0  #: bytes client → server
        self.connections = 0
        self._lock = threading.Lock()
        self._server: socket.socket | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def reset(self) -> None:
        with self._lock:
            self.down = self.up = self.connections = 0

    def _pump(self, src: socket.socket, dst: socket.socket, downstream: bool) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
                with self._lock:
                    if downstream:
                        self.down += len(data)
                    else:
                        self.up += len(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                dst.shutdown(socket.SHUT_WR)

    def _serve(self, client: socket.socket) -> None:
        with self._lock:
            self.connections += 1
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
        except OSError:
            client.close()
            return
        t = threading.Thread(target=self._pump, args=(upstream, client, True), daemon=True)
        t.start()
        self._pump(client, upstream, False)
        t.join()
        client.close()
        upstream.close()

    def _accept(self) -> None:
        assert self._server is not None
        while not self._stop.is_set():
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            client.settimeout(None)
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def start(self) -> CountingProxy:
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(64)
        self._server.settimeout(0.2)
        self.port = int(self._server.getsockname()[1])
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> CountingProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
