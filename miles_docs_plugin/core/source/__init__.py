"""Stage 1, source: fetch a repository at its pinned commit and keep it verified.

Input: a source of the config (repository URL, ``ref``, ``docs_dir``) and its lock entry.
Output: a :class:`~miles_docs_plugin.core.model.Checkout` (the docs folder at the exact commit,
in the cache) whose every file hashes to the pin.

- :mod:`.git`: git subprocesses (fetch one commit, resolve a ref, history), safe arguments;
- :mod:`.cache`: the checkout cache, one immutable entry per URL, commit and docs folder;
- :mod:`.integrity`: git object ids rebuilt from the entries and checked against the commit;
- :mod:`.lock`: the lock file that pins each source to a 40-hex commit.
"""
