"""The catalogs (issue 25): every marked message translated into every language, placeholders kept,
and no text a person reads left unmarked in a template or a page's script."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from api.i18n import CATALOGS, LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "t": None,
            "tn": (1, 2), "translate": None}
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]  # English is the source


def extracted() -> dict[str, set[str]]:
    """Every message babel.cfg finds in the sources, with the files it occurs in."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[str, set[str]] = {}
    for filename, _line, message, _comments, _context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS):
        key = message if isinstance(message, str) else message[0]
        if key:
            found.setdefault(key, set()).add(filename)
    return found


MESSAGES = extracted()


def catalog(lang: str):
    with (CATALOGS / lang / "LC_MESSAGES" / "messages.po").open("rb") as source:
        return read_po(source, locale=lang)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_marked_message_is_translated(lang: str) -> None:
    # Check every message of the sources has a translation (run `make messages`, then translate).
    po = catalog(lang)
    missing = []
    for key in sorted(MESSAGES):
        message = po.get(key) or next((m for m in po if isinstance(m.id, tuple)
                                       and m.id[0] == key), None)
        strings = [] if message is None else (
            list(message.string) if message.pluralizable else [message.string])
        if message is None or not all(strings) or message.fuzzy:
            missing.append(key)
    assert not missing, f"{len(missing)} messages without a {lang} translation: {missing[:15]}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_keep_the_placeholders(lang: str) -> None:
    # Check a translation names exactly the placeholders of its original (%(name)s).
    wrong = []
    po = catalog(lang)
    for message in po:
        if not message.id:
            continue
        if message.pluralizable:
            originals = [PLACEHOLDER.findall(i) for i in message.id]
            expected = set(originals[0]) | set(originals[1])
            for form in message.string:
                # A singular may say "one" instead of %(n)s; it names nothing else.
                if form and not (set(expected) - {"n"} <= set(PLACEHOLDER.findall(form))
                                 <= expected):
                    wrong.append((message.id[0], form))
        elif message.string and (sorted(PLACEHOLDER.findall(message.id))
                                 != sorted(PLACEHOLDER.findall(message.string))):
            wrong.append((message.id, message.string))
        # Babel's own check: python-format strings that would fail when filled in.
        wrong += [(message.id, str(error)) for error in message.check(po)]
    assert not wrong, wrong[:10]


# -- text left unmarked ---------------------------------------------------------------------

WORDS = re.compile(r"[A-Za-zÀ-ÿ]{2,}")
SPOKEN_ATTRIBUTES = {"title", "aria-label", "placeholder", "alt", "label"}
JINJA = re.compile(r"{% block body_class %}.*?{% endblock %}|{{.*?}}|{%.*?%}|{#.*?#}", re.S)
# Words a person reads the same in every language: the service's own name, the time zone's.
SAME_EVERYWHERE = {"gruft", "UTC"}


class TextFinder(HTMLParser):
    """The text nodes and spoken attributes of a template with its Jinja parts taken out."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        self.texts += [value or "" for name, value in attrs if name in SPOKEN_ATTRIBUTES]

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.texts.append(data)


@pytest.mark.parametrize("template", sorted((ROOT / "api/templates").glob("*.html")),
                         ids=lambda p: p.name)
def test_templates_mark_every_text(template: Path) -> None:
    # Check no template shows words outside {{ _(…) }}.
    finder = TextFinder()
    finder.feed(JINJA.sub(" ", template.read_text()))
    unmarked = [text.strip() for text in finder.texts
                if [w for w in WORDS.findall(text) if w not in SAME_EVERYWHERE]]
    assert not unmarked, f"{template.name}: text not marked for translation: {unmarked}"
