"""Sphinx settings for the course website (`make book`; the sources are prepared by book/build.py).

Sphinx + MyST-NB + the Sphinx Book Theme: all from PyPI, so the site builds offline from the stored notebook
outputs (nothing is executed: ``nb_execution_mode = "off"``), with search built in. MathJax is served from the
site itself (sphinx-mathjax-offline), and MyST-NB's widget scripts are turned off, so a page downloads nothing
from another host.
"""

from __future__ import annotations

import os

project = "vitcourse"
author = "the vitcourse authors"
copyright = "the vitcourse authors, MIT licence"

extensions = ["myst_nb", "sphinx-mathjax-offline"]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3

nb_execution_mode = "off"  # the stored outputs, which strict nbval checks, are what the site shows
nb_ipywidgets_js = {}  # no widget scripts from a CDN (explorers are replaced by still pictures)
nb_mime_priority_overrides = [("html", "image/gif", 35)]  # the soft-split animation plays (GIF before PNG)
nb_merge_streams = True

exclude_patterns = ["_build", "**.ipynb_checkpoints"]
html_theme = "sphinx_book_theme"
html_title = "vitcourse: a Vision Transformer and Tokens-to-Token, step by step"
# Code and printed outputs fit the text column (_static/vitcourse.css): the column is wider and long lines wrap.
html_static_path = ["_static"]
html_css_files = ["vitcourse.css"]
html_last_updated_fmt = None
# Light mode unless the reader picks another (an empty default makes the theme log a console error).
html_context = {"default_mode": "light"}
# The page's own contents ("On this page") sit in the left sidebar below the course's pages, not in a right
# sidebar of their own: the text column gets that width, so a code line of the course's 110 characters fits whole.
html_sidebars = {
    "**": [
        "navbar-logo.html",
        "icon-links.html",
        "search-button-field.html",
        "sbt-sidebar-nav.html",
        "page-toc.html",
    ]
}
html_theme_options = {
    "show_toc_level": 2,
    "use_download_button": True,
    "home_page_in_toc": True,
    "secondary_sidebar_items": [],
    "toc_title": "On this page",
}

# Launch buttons need the repository's public address: `make book BOOK_REPOSITORY=https://github.com/you/vitcourse`
# adds a Binder button to every notebook page (Binder builds environment.yml); without it, there is none.
_repository = os.environ.get("BOOK_REPOSITORY", "").strip()
if _repository:
    html_theme_options |= {
        "repository_url": _repository,
        "repository_branch": os.environ.get("BOOK_BRANCH", "main"),
        "path_to_docs": "",
        "launch_buttons": {"binderhub_url": "https://mybinder.org", "notebook_interface": "jupyterlab"},
        "use_repository_button": True,
    }
