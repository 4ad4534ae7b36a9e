"""The sample host site for Sphinx: the same section as the MkDocs sample, from the same pin."""

project = "Miles (sample host)"
author = "Miles"
extensions = ["myst_parser", "miles_docs_plugin.sphinx_ext"]
# miles_docs_config = "miles-docs.yml"   # the default: next to this file
html_theme = "furo"
html_title = "Miles (sample host)"
html_favicon = "_static/favicon.svg"
html_theme_options = {
    "source_repository": "https://github.com/miles-docs/sample-host",
    "source_branch": "main",
    "source_directory": "sample_site/sphinx/",
}
exclude_patterns = ["_build"]
