"""The message catalogs (issue 25): gettext's `.po` files in api/translations, read into memory.

The web pages read them through Flask-Babel (api/i18n.py); what runs outside a request, such as
`gruft report --lang`, loads one language's here. The `.po` files are the source and the only
form shipped: each language's is read once per process, when first needed, and compiled in
memory. Nothing is ever written beside them (issue 31, item 2): an installed package may be
read-only to the server's user, and a file `pip` did not install would outlive `pip uninstall`.
"""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

LANGUAGES = ("en", "de", "fr", "it", "es")  # English first: the source and the fallback
NAMES = {"en": "English", "de": "Deutsch", "fr": "Français", "it": "Italiano", "es": "Español"}
CATALOGS = Path(__file__).resolve().parents[1] / "api" / "translations"


def po_path(lang: str) -> Path:
    """Where a language's catalog is written."""
    return CATALOGS / lang / "LC_MESSAGES" / "messages.po"


@cache
def catalog(lang: str) -> Catalog:
    """One language's `.po`, parsed (once per process): the pages' scripts read it too."""
    with po_path(lang).open("rb") as source:
        return read_po(source, locale=lang)


@cache
def translations(lang: str) -> NullTranslations:
    """One language's catalog, compiled in memory (English, the source, translates nothing)."""
    if lang not in LANGUAGES[1:] or not po_path(lang).is_file():
        return NullTranslations()
    compiled = io.BytesIO()
    write_mo(compiled, catalog(lang))
    compiled.seek(0)
    return Translations(compiled)
