"""The viewer's static style sheet and script (see :mod:`._viewer`).

They live in ``assets/viewer.css`` and ``assets/viewer.js`` (package data), real
files so that editors and linters see them as CSS and JavaScript; this module only
reads them, once, when it is first imported (that is, when a report is rendered).
:func:`._viewer.render_html` inlines exactly these strings in the page, and the
page's Content-Security-Policy allows the script by the sha256 hash of exactly
these bytes (UTF-8, read as they are: no newline translation), computed there, so
any edit to the files is picked up without a hash to update by hand.

Static on purpose: no record data is ever interpolated into them, and the page's
Content-Security-Policy allows the script by its hash only. The script reads the
embedded JSON and builds every element with ``createElement``/``textContent``, never
``innerHTML``, so no example text can become markup.
"""

from __future__ import annotations

from importlib.resources import files

__all__ = ["CSS", "JS"]

_ASSETS = files(__package__) / "assets"

CSS: str = (_ASSETS / "viewer.css").read_bytes().decode("utf-8")
JS: str = (_ASSETS / "viewer.js").read_bytes().decode("utf-8")
