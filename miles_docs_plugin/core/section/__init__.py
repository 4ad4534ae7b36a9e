"""Stage 4, section: what a collected, transformed section may become in a host.

Input: a finished :class:`~miles_docs_plugin.core.model.Section` and the host's own pages.
Output: pages an engine may build (front matter reduced, HTML sanitised) at a mount that
replaces no host page; refusals as errors naming the file and what to do.

- :mod:`.mounts`: a section owns ``<mount>/`` and ``<mount>.*``; a host page there stops the build;
- :mod:`.sandbox`: the engine-neutral sandbox for untrusted pages;
- :mod:`.sanitize`: the rendered HTML of an injected page, parsed and written back safe;
- :mod:`.generated`: generated folders (marker, ``.gitignore``) for adapters that write files;
- :mod:`.banner`: the provenance banner's stylesheet, placement and template;
- :mod:`.report`: each diagnostic once, a summary line per section, the error that stops a build.
"""
