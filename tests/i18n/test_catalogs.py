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
            "tn": (1, 2), "pt": ((1, "c"), 2), "pgettext": ((1, "c"), 2), "translate": None}
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdr]")
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]  # English is the source


def extracted() -> dict[tuple[str, str | None], set[str]]:
    """Every message babel.cfg finds in the sources, with the files it occurs in."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[str, set[str]] = {}
    for filename, _line, message, _comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS):
        key = (message if isinstance(message, str) else message[0], context)
        if key[0]:
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
    for key, context in sorted(MESSAGES, key=str):
        message = po.get(key, context) or next((m for m in po if isinstance(m.id, tuple)
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


# A string literal in a page's script, and what comes just before it.
JS_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`')
JS_COMMENT = re.compile(r"(?<![:\"'`])//[^\n]*$|/\*(?:[^*]|\*(?!/))*\*/", re.M)
# Literals that are code, not words: class names, element ids, selectors, keys, URLs, events.
JS_CODE_BEFORE = re.compile(
    r"(\bt\(|\btn\(|\bpt\([^,]*,\s*|\btn\([^;]*?,\s*|class:\s*|className\s*=\s*|classList\.\w+\(|querySelector(All)?\(|"
    r"getElementById\(|\$\(|addEventListener\(|dataset\.\w+\s*=\s*|setAttribute\(|"
    r"searchParams\.\w+\(|import .* from |console\.\w+\(|[=!]==\s*|case\s+|type:\s*|"
    r"setItem\(|getItem\(|\.style\.\w+\s*=\s*|setProperty\(|Authorization\s*=\s*|rel:\s*|"
    r"class:\s*\[[^\]]*)\s*$")
# Literals that are class names though they look like two words.
JS_CODE_LITERAL = re.compile(r"^(drop lost(-last)?|fam fam-.*)$")
# A literal a person reads: two words, or one word spelled as a sentence starts.
JS_WORDS = re.compile(r"[A-Za-z]{2,}[,.:;!?…—]?\s+[A-Za-z]{2,}|^[A-Z][a-z]{3,}[.!…]?$")


def unmarked_in_script(text: str) -> list[str]:
    """The literals of a script that look like words and are not marked with t()/tn()."""
    code = JS_COMMENT.sub("", text)
    found = []
    for match in JS_STRING.finditer(code):
        literal = match.group()[1:-1]
        if not JS_WORDS.search(re.sub(r"\$\{[^}]*\}", " ", literal)):
            continue
        before = code[max(0, match.start() - 200):match.start()]
        after = code[match.end():match.end() + 3]
        if JS_CODE_BEFORE.search(before) or after.lstrip().startswith(":") or (
                JS_CODE_LITERAL.match(literal)):
            continue
        found.append(literal)
    return found


@pytest.mark.parametrize("script", sorted((ROOT / "api/static").glob("*.js")), ids=lambda p: p.name)
def test_scripts_mark_every_text(script: Path) -> None:
    # Check no page's script shows words outside t() or tn().
    unmarked = unmarked_in_script(script.read_text())
    assert not unmarked, f"{script.name}: text not marked for translation: {unmarked}"


def test_the_script_check_finds_unmarked_text() -> None:
    # Check the check itself: a sentence in el() is found, the same one in t() is not.
    assert unmarked_in_script('el("p", {}, "Waiting for the host");') == ["Waiting for the host"]
    assert unmarked_in_script('el("p", {}, `Round ${n} ended`);') == ["Round ${n} ended"]
    assert unmarked_in_script('el("p", { class: "card back" }, t("Waiting for the host"));') == []


# -- Python messages Babel cannot see ------------------------------------------------------------

# A marking call with its message written out: _("…"), self._("…"), ngettext("…", …), N_("…").
MARKING_CALL = re.compile(r"(?<![\w])(?:self\._|_\.ngettext|self\.ngettext|_|gettext|ngettext|N_)"
                          r"\(\s*[\"']")


def marked_inside_fstrings(source: str) -> list[str]:
    """Marked messages written inside an f-string's braces, where extraction never looks."""
    import io
    import tokenize

    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        prefix = re.match(r"\w*", token.string).group().lower()
        if token.type == tokenize.STRING and "f" in prefix and MARKING_CALL.search(token.string):
            found.append(f"line {token.start[0]}: {token.string[:60]}")
    return found


@pytest.mark.parametrize("folder", ["domain", "service", "api", "replays", "cli", "serving"])
def test_no_marked_message_hides_in_an_fstring(folder: str) -> None:
    # Check every marked Python message is one Babel extracts (not in an f-string's braces).
    hidden = {str(p.relative_to(ROOT)): marked_inside_fstrings(p.read_text())
              for p in sorted((ROOT / folder).rglob("*.py"))}
    hidden = {path: found for path, found in hidden.items() if found}
    assert not hidden, hidden


def test_the_fstring_check_finds_a_hidden_message() -> None:
    assert marked_inside_fstrings("x = f\"<h2>{_('Annotations')}</h2>\"\n")
    assert marked_inside_fstrings("x = f'{self._(\"a\")}'\n")
    assert not marked_inside_fstrings("x = f'{value}'\ny = _('Annotations')\n")


# A marking call inside a template literal's ${…}: Babel's JavaScript extractor never looks there.
JS_HIDDEN = re.compile(r"`[^`]*\$\{[^}`]*\b(?:t|tn|pt)\(\s*[\"']")


@pytest.mark.parametrize("script", sorted((ROOT / "api/static").glob("*.js")), ids=lambda p: p.name)
def test_no_script_message_hides_in_a_template_literal(script: Path) -> None:
    # Check every message a script marks is one the extraction finds (so it gets translated).
    hidden = [m.group()[:60] for m in JS_HIDDEN.finditer(JS_COMMENT.sub("", script.read_text()))]
    assert not hidden, f"{script.name}: t() inside a template literal: {hidden}"


def test_no_stylesheet_writes_words() -> None:
    # Check no CSS `content:` says words, which no catalog could translate.
    words = re.compile(r"content:\s*[\"'][^\"']*[A-Za-z]{2,}")
    found = {p.name: words.findall(p.read_text()) for p in (ROOT / "api/static").glob("*.css")}
    assert not {name: hits for name, hits in found.items() if hits}, found
