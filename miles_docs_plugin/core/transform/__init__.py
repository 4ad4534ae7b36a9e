"""Stage 3, transform: rewrite each page's text for the host engine.

Input: a page's Markdown or MDX text. Output: the same page with its links, anchors and
components rewritten (the built-in plugins drive these helpers from their hooks).

- :mod:`.markdown`: where links are in a page (markdown-it-py), and span-exact rewriting;
- :mod:`.scancache`: the signed cache of scan results, keyed by page content;
- :mod:`.mdx`: the MDX syntax the pages use (tags, expressions, imports, fences);
- :mod:`.blocks`: the engine-neutral component model and its Markdown fallback;
- :mod:`.anchors`: heading ids as each engine makes them;
- :mod:`.dialect`: one page dialect (Mintlify components, admonitions) into the neutral model;
- :mod:`.lookup`: a section's page from a path as authors write it (links and nav files).
"""
