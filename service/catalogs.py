"""The message catalogs (issue 25): gettext's `.po` files in api/translations, compiled and loaded.

The web pages read them through Flask-Babel (api/i18n.py); what runs outside a request, such as
`gruft report --lang`, loads one language's here. The `.po` files are the source; their `.mo`
are compiled when missing or older than their `.po` (a fresh clone, an edited catalog), into a
temporary folder when the installed package is read-only.
"""

from __future__ import annotations

import gettext as gnu
import logging
import os
import tempfile
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LANGUAGES = ("en", "de", "fr", "it", "es")  # English first: the source and the fallback
NAMES = {"en": "English", "de": "Deutsch", "fr": "Français", "it": "Italiano", "es": "Español"}
CATALOGS = Path(__file__).resolve().parents[1] / "api" / "translations"
log = logging.getLogger("gruft.i18n")


def compile_catalogs(folder: Path = CATALOGS) -> Path:
    """Compile each `.po` whose `.mo` is missing or older; return where the `.mo` files are."""
    stale = [po for po in sorted(folder.glob("*/LC_MESSAGES/messages.po"))
             if not _fresh(po.with_suffix(".mo"), po)]
    if not stale:
        return folder
    try:
        for po in stale:
            _compile(po, po.with_suffix(".mo"))
        return folder
    except OSError as err:  # an installed package may be read-only: compile beside it instead
        target = Path(tempfile.mkdtemp(prefix="gruft-catalogs-"))
        log.warning("catalogs compiled into %s (%s)", target, err)
        for po in sorted(folder.glob("*/LC_MESSAGES/messages.po")):
            mo = target / po.relative_to(folder).with_suffix(".mo")
            mo.parent.mkdir(parents=True, exist_ok=True)
            _compile(po, mo)
        return target


def _fresh(mo: Path, po: Path) -> bool:
    return mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime


def _compile(po: Path, mo: Path) -> None:
    with po.open("rb") as source:
        catalog = read_po(source, locale=po.parent.parent.name)
    # Written beside and renamed: workers starting together never read half a file.
    fd, temporary = tempfile.mkstemp(dir=mo.parent, suffix=".mo.tmp")
    with os.fdopen(fd, "wb") as out:
        write_mo(out, catalog)
    os.replace(temporary, mo)




@cache
def translations(lang: str) -> gnu.NullTranslations:
    """One language's catalog (English, the source, translates nothing)."""
    if lang not in LANGUAGES[1:]:
        return gnu.NullTranslations()
    return Translations.load(str(compile_catalogs()), [lang])
