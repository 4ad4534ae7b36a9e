"""Running git: argument lists only, no shell, no prompts, no secrets in output.

Authentication is whatever the user's git already does (credential helpers, SSH agent). For CI,
``MILES_DOCS_GIT_TOKEN`` is handed to git as an HTTP ``Authorization`` header through
``GIT_CONFIG_*`` environment variables: it never appears in a URL, a command line, a log line or
an error message (every output of git is masked before it is shown).
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..env import env_seconds
from ..errors import FetchError
from ..urls import ALLOWED_SCHEMES, mask

TOKEN_ENV = "MILES_DOCS_GIT_TOKEN"
TOKEN_USER_ENV = "MILES_DOCS_GIT_USER"
TIMEOUT_ENV = "MILES_DOCS_GIT_TIMEOUT"
DEFAULT_TIMEOUT = 600.0  #: seconds a git command may take; TIMEOUT_ENV changes it


class GitError(FetchError):
    """A git command failed; ``stderr`` is already masked."""

    def __init__(self, message: str, *, stderr: str = "", where: str | None = None,
                 hint: str | None = None) -> None:
        self.stderr = stderr
        super().__init__(message, where=where, hint=hint)

    @property
    def no_space(self) -> bool:
        """git failed because the disk (or the user's quota) is full."""
        return any(marker in self.stderr for marker in NO_SPACE)


def _secrets(env: Mapping[str, str]) -> list[str]:
    token = env.get(TOKEN_ENV)
    if not token:
        return []
    user = env.get(TOKEN_USER_ENV, "x-access-token")
    basic = base64.b64encode(f"{user}:{token}".encode()).decode()
    return [token, basic]


def scrub(text: str, env: Mapping[str, str] | None = None) -> str:
    """Mask credentials in URLs and the CI token anywhere in ``text``."""
    env = os.environ if env is None else env
    text = mask(text)
    for secret in _secrets(env):
        text = text.replace(secret, "***")
    return text


def git_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment git runs in."""
    env = dict(os.environ if base is None else base)
    env["GIT_TERMINAL_PROMPT"] = "0"  # fail instead of waiting for a password
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    # Defence in depth: even a submodule or redirect cannot reach ext:: or other transports.
    env["GIT_ALLOW_PROTOCOL"] = ":".join(ALLOWED_SCHEMES)
    env["LC_ALL"] = "C"
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    token = env.get(TOKEN_ENV)
    if token:
        user = env.get(TOKEN_USER_ENV, "x-access-token")
        header = "Authorization: Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()
        count = env.get("GIT_CONFIG_COUNT", "0") or "0"
        if not count.isdigit():
            raise FetchError(f"GIT_CONFIG_COUNT={count!r} is not a number",
                             where="environment", hint="unset it or fix it")
        n = int(count)
        env[f"GIT_CONFIG_KEY_{n}"] = "http.extraHeader"
        env[f"GIT_CONFIG_VALUE_{n}"] = header
        env["GIT_CONFIG_COUNT"] = str(n + 1)
    return env


def git_executable() -> str:
    exe = shutil.which("git")
    if not exe:
        raise FetchError("git is not installed or not on PATH",
                         hint="install git (https://git-scm.com) and try again")
    return exe


def run_git(args: Sequence[str], *, cwd: Path | None = None, env: Mapping[str, str] | None = None,
            timeout: float | None = None, what: str = "git") -> subprocess.CompletedProcess[str]:
    """Run ``git args`` and return the completed process; raise :class:`GitError` on failure."""
    full_env = git_env(env)
    configured = env_seconds(TIMEOUT_ENV, DEFAULT_TIMEOUT)  # checked on every run
    limit = timeout or configured
    cmd = [git_executable(), "-c", "core.hooksPath=" + os.devnull, "-c", "protocol.ext.allow=never",
           *args]
    try:
        proc = subprocess.run(  # noqa: S603 - an argument list, never a shell
            cmd, cwd=cwd, env=full_env, capture_output=True, text=True, encoding="utf-8",
            errors="replace", timeout=limit, stdin=subprocess.DEVNULL,
            check=False)
    except subprocess.TimeoutExpired:
        raise GitError(f"{what} timed out after {limit:.0f}s",
                       hint=f"check the network, or raise {TIMEOUT_ENV} (e.g. 30m)") from None
    if proc.returncode != 0:
        stderr = scrub(proc.stderr.strip(), full_env)
        message, hint = explain(stderr)
        raise GitError(f"{what} failed: {message}", stderr=stderr, hint=hint)
    return proc


def git_object(repo: Path, kind: str, oid: str) -> bytes:
    """The raw bytes of object ``oid`` of type ``kind`` (``git cat-file <kind> <oid>``), for
    hashing: text decoding would change bytes that are not UTF-8."""
    cmd = [git_executable(), "cat-file", kind, oid]
    proc = subprocess.run(  # noqa: S603 - an argument list, never a shell
        cmd, cwd=repo, env=git_env(), capture_output=True,
        timeout=env_seconds(TIMEOUT_ENV, DEFAULT_TIMEOUT),
        stdin=subprocess.DEVNULL, check=False)
    if proc.returncode != 0:
        raise GitError(f"reading {kind} {oid} failed",
                       stderr=scrub(proc.stderr.decode("utf-8", "replace").strip()))
    return proc.stdout


def read_objects(repo: Path, oids: Sequence[str]) -> dict[str, tuple[str, bytes]]:
    """The type and raw bytes of each object of ``oids``, from one ``git cat-file --batch``
    (one process for any number of objects; bytes, never decoded). A missing object is an
    error."""
    if not oids:
        return {}
    proc = subprocess.run(  # noqa: S603 - an argument list, never a shell
        [git_executable(), "cat-file", "--batch"], cwd=repo, env=git_env(),
        input="".join(f"{oid}\n" for oid in oids).encode("ascii"), capture_output=True,
        timeout=env_seconds(TIMEOUT_ENV, DEFAULT_TIMEOUT), check=False)
    if proc.returncode != 0:
        raise GitError("reading objects failed",
                       stderr=scrub(proc.stderr.decode("utf-8", "replace").strip()))
    out = proc.stdout
    found: dict[str, tuple[str, bytes]] = {}
    pos = 0
    for oid in oids:
        end = out.find(b"\n", pos)
        header = out[pos:end].decode("ascii", "replace").split() if end >= 0 else []
        if len(header) != 3 or header[0] != oid or not header[2].isdigit():
            raise GitError(f"object {oid} is missing from the fetched commit")
        size = int(header[2])
        found[oid] = (header[1], out[end + 1:end + 1 + size])
        pos = end + 1 + size + 1  # the content, then a newline
    return found


def commit_date(commit_object: bytes) -> str:
    """The committer date of a raw commit object, as ``git show -s --format=%cI`` prints it
    (strict ISO 8601, the committer's own offset); "" when it has none."""
    from datetime import datetime, timedelta, timezone

    for line in commit_object.split(b"\n\n", 1)[0].split(b"\n"):
        if not line.startswith(b"committer "):
            continue
        parts = line.rsplit(b" ", 2)
        if len(parts) != 3 or not parts[1].isdigit() or not re.fullmatch(rb"[+-]\d{4}",
                                                                          parts[2]):
            return ""
        tz = parts[2].decode()
        offset = timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5]))
        zone = timezone(-offset if tz[0] == "-" else offset)
        return datetime.fromtimestamp(int(parts[1]), zone).isoformat()
    return ""


NO_SPACE = ("No space left on device", "Disk quota exceeded")


def explain(stderr: str) -> tuple[str, str | None]:
    """What git said, for a one-line error: its ``fatal:``/``error:`` lines, and the advice
    it printed after them as the hint (``Please make sure ... the repository exists.``)."""
    lines = [ln.strip() for ln in stderr.splitlines()
             if ln.strip() and not ln.startswith(("warning:", "hint:"))]
    fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:"))]
    advice = " ".join(ln for ln in lines if ln not in fatal) or None
    said = "; ".join(fatal) or (lines[-1] if lines else "no message")
    if any(marker in stderr for marker in NO_SPACE):  # said once, whatever step failed
        return (f"out of disk space ({said})",
                "free some space, or point MILES_DOCS_CACHE to a folder on another disk")
    return said, advice


SHA_RE = re.compile(r"^[0-9a-f]{40}$")


def resolve_ref(fetch_url: str, ref: str, *, display: str) -> str:
    """The commit that ``ref`` (branch, tag, full ref name or 40-hex commit) names remotely."""
    if SHA_RE.match(ref):
        return ref
    out = run_git(["ls-remote", "--", fetch_url], what=f"listing the refs of {display}",
                  timeout=120).stdout
    refs: dict[str, str] = {}
    for line in out.splitlines():
        sha, _, name = line.partition("\t")
        refs[name] = sha
    for name in (ref, f"refs/heads/{ref}", f"refs/tags/{ref}"):
        peeled = refs.get(name + "^{}")
        if peeled or name in refs:
            return peeled or refs[name]
    raise GitError(f"{display} has no branch or tag {ref!r}",
                   hint="set `ref:` to an existing branch or tag, or pass --ref")


def history(repo: Path, fetch_url: str, old: str, ref: str, docs_dir: str, *,
            display: str, also: Sequence[str] = ()) -> tuple[str, int, list[tuple[str, str]]]:
    """Fetch ``ref`` (trees only) into the empty repository ``repo`` and compare it with ``old``.

    Returns (tip commit, commits from ``old`` to the tip, changed docs files, and changed
    files among ``also``, as (status letter, path)).
    """
    run_git(["init", "--quiet", "--template=", str(repo)], what="git init")
    run_git(["fetch", "--quiet", "--filter=blob:none", "--no-tags", "--", fetch_url, ref],
            cwd=repo, what=f"fetching {ref} of {display}")
    tip = run_git(["rev-parse", "FETCH_HEAD"], cwd=repo, what="reading FETCH_HEAD").stdout.strip()
    try:
        run_git(["cat-file", "-e", f"{old}^{{commit}}"], cwd=repo, what="looking up the pin")
    except GitError:
        run_git(["fetch", "--quiet", "--filter=blob:none", "--no-tags", "--", fetch_url, old],
                cwd=repo, what=f"fetching the pin {old[:7]} of {display}")
    count = int(run_git(["rev-list", "--count", f"{old}..{tip}"], cwd=repo,
                        what="counting commits").stdout.strip() or 0)
    diff = run_git(["diff", "--name-status", "--no-renames", old, tip, "--", docs_dir, *also],
                   cwd=repo, what="comparing trees").stdout
    changes = [(line[0], line.split("\t", 1)[1]) for line in diff.splitlines() if "\t" in line]
    return tip, count, changes


def numstat(a: Path | None, b: Path | None) -> tuple[int, int]:
    """Lines added and removed from file ``a`` to file ``b`` (git's own diff)."""
    left = str(a) if a is not None else os.devnull
    right = str(b) if b is not None else os.devnull
    proc = subprocess.run(  # noqa: S603 - an argument list, never a shell
        [git_executable(), "diff", "--no-index", "--numstat", "--", left, right],
        capture_output=True, text=True, check=False, env=git_env())
    if proc.returncode not in (0, 1):
        return 0, 0
    for line in proc.stdout.splitlines():
        added, removed, _ = line.split("\t", 2)
        if added.isdigit() and removed.isdigit():
            return int(added), int(removed)
    return 0, 0
