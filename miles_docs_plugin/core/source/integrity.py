"""Integrity from the pin: the cached tree must hash, with git's own object hashes, to the
40-hex commit id in the lock file.

A cache entry records the commit object (its raw bytes) and every entry of the commit's tree
(path, mode, object id). Verifying it walks git's Merkle chain from the bottom up:

- every blob that is read is hashed and compared with its blob id (:func:`blob_id`, at read
  time, in :mod:`.collect`);
- every tree object is rebuilt from its entries' modes, names and ids and hashed, folder by
  folder, up to the root tree;
- the root tree id must be the ``tree`` line of the commit object, and the commit object must
  hash to the pinned commit id.

So whatever the cache folder holds, and whoever can write it, a page is published only when its
bytes are those of the pinned commit: forging one would need a SHA-1 preimage of the pin that
the user reviewed. Nothing here runs git.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping


class IntegrityError(ValueError):
    """The recorded tree or commit does not hash to the pin."""


def object_id(kind: str, data: bytes) -> str:
    """The id git gives an object of ``kind`` (``blob``, ``tree``, ``commit``) with ``data``."""
    h = hashlib.sha1(b"%s %d\0" % (kind.encode(), len(data)), usedforsecurity=False)
    h.update(data)
    return h.hexdigest()


def blob_id(data: bytes) -> str:
    """The git blob id of ``data`` (what ``git hash-object`` prints)."""
    return object_id("blob", data)


def _tree_mode(mode: str) -> str:
    # ls-tree prints "040000" for trees; the tree object stores "40000".
    return mode.lstrip("0") or "0"


def root_tree(entries: Mapping[str, tuple[str, str]]) -> str:
    """The root tree id of a full recursive tree listing: ``path -> (mode, object id)``
    (``git ls-tree -r -t --full-tree``: trees, blobs, symlinks and submodules).

    Tree ids in the listing are not trusted: every tree is rebuilt from its children.
    """
    children: dict[str, list[tuple[bytes, bytes, str]]] = {"": []}
    for path, (mode, _oid) in entries.items():
        if mode.lstrip("0") == "40000":
            children.setdefault(path, [])
    for path, (mode, _oid) in entries.items():
        parent, _, name = path.rpartition("/")
        if parent not in children:
            raise IntegrityError(f"{path} has no parent folder in the recorded tree")
        is_tree = mode.lstrip("0") == "40000"
        # git sorts a tree's entries by name, comparing a folder's name as if it ended in "/"
        key = name.encode("utf-8", "surrogateescape") + (b"/" if is_tree else b"")
        children[parent].append((key, name.encode("utf-8", "surrogateescape"), path))
    computed: dict[str, str] = {}
    for folder in sorted(children, key=lambda p: p.count("/") if p else -1, reverse=True):
        body = bytearray()
        for _key, name_bytes, child in sorted(children[folder]):
            mode, oid = entries[child]
            if mode.lstrip("0") == "40000":
                oid = computed[child]
            try:
                raw = bytes.fromhex(oid)
            except ValueError:
                raise IntegrityError(f"{child}: {oid!r} is not an object id") from None
            if len(raw) != 20:
                raise IntegrityError(f"{child}: {oid!r} is not an object id")
            body += _tree_mode(mode).encode() + b" " + name_bytes + b"\0" + raw
        computed[folder] = object_id("tree", bytes(body))
    return computed[""]


def verify_commit(commit: str, commit_object: bytes, entries: Mapping[str, tuple[str, str]]
                  ) -> None:
    """Check that ``entries`` is the tree of ``commit_object`` and that it is ``commit``.

    Raises :class:`IntegrityError` naming the first link of the chain that does not hold.
    """
    if object_id("commit", commit_object) != commit:
        raise IntegrityError(f"the recorded commit object does not hash to {commit}")
    first = commit_object.split(b"\n", 1)[0]
    if not first.startswith(b"tree ") or len(first) != 45:
        raise IntegrityError("the recorded commit object has no tree line")
    tree = first[5:].decode("ascii", "replace")
    if root_tree(entries) != tree:
        raise IntegrityError(f"the recorded tree does not hash to tree {tree} of commit "
                             f"{commit}")
