"""Marking a message for translation without translating it here: the domain stays pure.

`N_("…")` returns its argument unchanged; Babel's extraction (babel.cfg) finds it, so the catalogs
carry the message, and the layer that knows the reader's language (api/i18n.py, the report's
`--lang`) translates it. Templates use gettext's `%(name)s` placeholders.
"""

from __future__ import annotations

from collections.abc import Callable

Gettext = Callable[[str], str]
Ngettext = Callable[[str, str, int], str]


def N_(message: str) -> str:
    """A message marked for the catalogs, returned as it is (English)."""
    return message


def english(message: str) -> str:
    """The identity translation: the source language."""
    return message


def english_plural(singular: str, plural: str, n: int) -> str:
    """The source language's plural choice."""
    return singular if n == 1 else plural
