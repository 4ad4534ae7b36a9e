"""Stage 2, collect: turn a checkout into a section's pages and navigation.

Input: a :class:`~miles_docs_plugin.core.model.Checkout`.
Output: a :class:`~miles_docs_plugin.core.model.Section` holding its pages (text, front matter,
title), the upstream site's navigation and redirects, and its landing page.

- :mod:`.collect`: read every page, verify its blob id, split front matter, find titles;
- :mod:`.upstream`: the upstream site as its authors built it (``mkdocs.yml``, ``docs.json``);
- :mod:`.conventions`: which files are pages, hidden or snippets, and the index rule;
- :mod:`.landing`: the section's landing page when the upstream has none.
"""
