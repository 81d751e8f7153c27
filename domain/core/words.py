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


class Term(str):
    """A word of the game (a colour, a location) filled into a message: translated with it.

    Player names are filled in as they are (cards the narrators say in words themselves); a Term
    is looked up in the catalog like the message around it (its English must be marked with `N_`
    where it is defined).
    """


def fill(template: str, params: dict | None = None, gettext: Gettext = english) -> str:
    """`template` in the reader's language with its `%(name)s` placeholders filled in.

    Without parameters the template is not formatted (as gettext's own convention), so a `%`
    in a plain message needs no doubling. A catalog whose translation does not fit its
    parameters must not turn an answer into an error: the English is used instead.
    """
    text = gettext(template)
    if not params:
        return text
    values = {k: gettext(v) if isinstance(v, Term) else v.said(gettext)
              if isinstance(v, Said | Phrase) else v for k, v in params.items()}
    try:
        return text % values
    except (KeyError, ValueError, TypeError):
        return template % {k: str(v) for k, v in params.items()}


def fill_plural(singular: str, plural: str, n: int, params: dict, gettext: Gettext = english,
                ngettext: Ngettext = english_plural) -> str:
    """The form of a message the language uses for `n`, its placeholders (and %(n)s) filled."""
    text = ngettext(singular, plural, n)
    values = {"n": n, **{k: gettext(v) if isinstance(v, Term) else v for k, v in params.items()}}
    try:
        return text % values
    except (KeyError, ValueError, TypeError):
        return (singular if n == 1 else plural) % {"n": n, **params}


class Phrase(str):
    """A marked template and its parameters, filled in: the English string, said in any language.

    For a part of a message that is itself a message (`what` a hunt is), and for texts that
    must be plain strings on the way (an HTTP error's description).
    """

    template: str
    params: dict

    def __new__(cls, template: str, /, **params: object) -> Phrase:
        text = super().__new__(cls, fill(template, params))
        text.template, text.params = template, params
        return text

    def said(self, gettext: Gettext = english) -> str:
        """The phrase in the language `gettext` translates into."""
        return fill(self.template, self.params, gettext)


class Said:
    """An error whose message is a marked template and its parameters, said in any language.

    `str(error)` is the English; `error.said(gettext)` the reader's. Raise with the template
    marked: `raise BadCommand(N_("field %(name)r must be a string"), name=name)`.
    """

    def __init__(self, message: str = "", /, **params: object) -> None:
        self.template, self.params = message, params
        super().__init__(fill(message, params))

    def said(self, gettext: Gettext = english) -> str:
        """The message in the language `gettext` translates into."""
        return fill(self.template, self.params, gettext)
