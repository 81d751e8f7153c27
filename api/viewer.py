"""The web replay viewer (issue 7): a game list at `/` and a page that steps through a game.

Access follows `replay`: the host (token) any time, anyone once the game is finished. A browser
cannot send an Authorization header when it navigates, so the page also takes the token as
`?token=`; the page's script then calls the JSON endpoints with `Authorization: Bearer` and takes
the token out of the address bar, so a shared `?step=n` link never carries it.

The plain-words event descriptions come from each game's narrator (domain/<game>/narration.py)
and are served with the page, including each event as every player saw it then.
"""

from __future__ import annotations

import hashlib
from contextlib import suppress
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from flask import current_app, render_template, request, url_for
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from api.auth import query_token, request_token
from api.errors import GruftBlueprint, error_response
from api.games import games
from api.i18n import error_text, language, narration_words
from api.reads import games_page
from api.schemas import MAX_CURSOR
from domain import GAMES, available_games, game_class
from domain.core import BadCommand, Game
from domain.core.eventfilter import concerns
from domain.core.landmarks import starts
from domain.core.narration import describe
from domain.core.words import N_
from service import Forbidden, GameNotFound, Unauthorized
from service.audit.arbiter import shown
from service.caches import VIEWER_EVENTS, VIEWER_PAGES, BytesLRU

blp = GruftBlueprint("viewer", __name__, description="The web replay viewer (HTML pages)",
                template_folder="templates", static_folder="static",
                static_url_path="/viewer/static")

TITLES = {key: game_class(key).NARRATOR.TITLE for key in available_games()}
# The registry as the pages' scripts see it: each game key -> its class name. The scripts
# dispatch on the class name, so a game's key is written once, in its own class (Game.KEY).
GAME_KINDS = {key: cls.__name__ for key, cls in GAMES.items()}
LIST_PAGE_SIZE = 50

# The page runs only its own script and style and talks only to this server; its JSON data
# sits in a non-executed <script type="application/json">, which this policy allows.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
                               "form-action 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",  # a ?token= must never leave in a Referer header
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}

FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")  # POST's bodies
HTML_PAGE = {"description": "an HTML page", "content": {"text/html": {"schema": {"type": "string"}}}}


@blp.app_context_processor
def game_kinds() -> dict[str, Any]:
    """The game registry for base.html, which hands it to every page's script."""
    return {"game_kinds": GAME_KINDS}


# -- pages --------------------------------------------------------------------------------

@blp.route("/", parameters=[
    {"in": "query", "name": name, "schema": {"type": kind}, "required": False}
    for name, kind in (("game", "string"), ("status", "string"), ("player", "string"),
                       ("after", "integer"))])
@blp.doc(responses={200: HTML_PAGE})
def game_list():
    """The stored games, newest first, filtered, each linking to its replay viewer (HTML)."""
    keys = available_games()
    game = request.args.get("game") or None
    status = request.args.get("status") or None
    player = (request.args.get("player") or "").strip()[:40] or None
    after = request.args.get("after", "0")
    # A hand-edited query string narrows nothing rather than failing.
    game = game if game in keys else None
    status = status if status in ("in_progress", "finished") else None
    after = int(after) if after.isdigit() and int(after) <= MAX_CURSOR else 0
    page, cursor = games_page(game, status, player, after, LIST_PAGE_SIZE, newest=True)
    for summary in page:
        summary["title"] = TITLES.get(summary["game"], summary["game"])
    html = render_template("list.html", games=page, next_after=cursor, titles=TITLES, keys=keys,
                           chosen={"game": game, "status": status, "player": player})
    return html, 200, SECURITY_HEADERS


@blp.route("/games/<game_id>/viewer", parameters=[
    {"in": "query", "name": "step", "schema": {"type": "integer", "minimum": 0},
     "required": False, "description": "the step to open at (shareable)"},
    {"in": "query", "name": "token", "schema": {"type": "string"}, "required": False,
     "description": "the host token, for a game still in progress (a browser cannot send "
                    "an Authorization header when it navigates); the host's page posts it as "
                    "the form field `token` instead, so that no address holds it"}],
    methods=["GET", "POST"])
@blp.doc(responses={200: HTML_PAGE, 401: {"description": "unauthorized"},
                    403: {"description": "forbidden: in progress and not the host"},
                    404: {"description": "not_found"},
                    429: {"description": "rate_limited (GRUFT_READ_LIMIT)"}})
def viewer_page(game_id: str):
    """A web page that steps through a game (host any time, anyone once it is finished).

    POST takes the token as the form field `token` (the host's page's button): a browser keeps
    the addresses it opens, never a form's fields (issue 23, item 6)."""
    if request.method == "POST" and request.mimetype not in FORMS:
        raise BadCommand(N_("the viewer takes its token as the form field 'token'"))
    token = request_token()
    if token is None and request.method == "POST":
        token = query_token(request.form.get("token"))
    who = games().access.authenticate(game_id, token)
    try:
        game = games().reads.replay_game(game_id, who, N_("This game's replay"))
    except Forbidden as err:
        raise Forbidden(N_("%(err)s; the host can watch it now from the host's page."),
                        err=err) from None
    # The script needs the token while the JSON endpoints still ask for it (in play, or sealed:
    # service.audit.seals), and the host's for what only the host does (forking).
    open_to_all = games().reads.seals.revealed(game)
    data = page_data(game, token=token if who.host or not open_to_all else None)
    data["host"] = who.host
    data["fork_url"] = url_for("arbiter.Fork", game_id=game.id)
    # The described events join the page's data as JSON kept per version and language.
    told = described(game)
    data.update(event_types=told.event_types, starts=told.starts)
    small = script_json(data)
    # A page that carries no token is the same for everyone who asks it in this language at this
    # address: kept whole (its data, annotations and forks included, by their hash).
    page = None if data["token"] is not None else (
        game.id, game.version, language(), request.script_root, request.full_path,
        hashlib.sha256(small.encode()).hexdigest())
    if page is not None:
        with suppress(KeyError):
            return DESCRIBED.page(page), 200, SECURITY_HEADERS
    script_data = Markup(f'{small[:-1]}, "events": {told.events}}}')
    html = render_template("viewer.html", data=data, script_data=script_data,
                           title=data["title"])
    if page is not None:
        DESCRIBED.keep_page(page, html)
    return html, 200, SECURITY_HEADERS


@dataclass(frozen=True)
class Told:
    """A game's events in words as the page carries them: `events` as HTML-safe JSON."""

    events: str
    event_types: list[str]
    starts: list[dict[str, Any]]

    def size(self) -> int:
        """About the bytes it holds."""
        return len(self.events) + 100 * (len(self.event_types) + len(self.starts))


class Described:
    """Games' described events as the viewer's page carries them, by game id, version and
    language (service.caches.VIEWER_EVENTS): a long game's page is described once per version,
    not on each ask (issue 32, item 8: a 4,904-event page took 568 ms)."""

    def __init__(self) -> None:
        self._texts: BytesLRU[tuple[UUID, int, str], Told] = BytesLRU(VIEWER_EVENTS, Told.size)
        self._pages: BytesLRU[tuple[Any, ...], str] = BytesLRU(VIEWER_PAGES, len)

    def page(self, key: tuple[Any, ...]) -> str:
        """A whole page that carries no token."""
        return self._pages.get(key)

    def keep_page(self, key: tuple[Any, ...], html: str) -> None:
        self._pages.put(key, html)

    def get(self, key: tuple[UUID, int, str]) -> Told:
        return self._texts.get(key)

    def put(self, key: tuple[UUID, int, str], told: Told) -> None:
        self._texts.put(key, told)


DESCRIBED = Described()


def described(game: Game) -> Told:
    """A game at hand's events in words in the page's language, each naming the players it
    concerns; the event types it holds and where each part begins."""
    key = (game.id, game.version, language())
    with suppress(KeyError):
        return DESCRIBED.get(key)
    records = games().reads.records_of(game)
    players = list(game.players)
    said, said_plural = narration_words()  # in the page's language
    events = describe(type(game), records, players, dict(game.options), gettext=said,
                      ngettext=said_plural)
    # The page is shown only to who may replay the game (it sees every event whole), so each
    # event names the players it concerns as the log's ?player= filter would for them; `starts`
    # are the steps where each phase, round, trick or turn begins (domain.core.landmarks).
    for item, record in zip(events, records, strict=True):
        item["players"] = [p for p in players if concerns(record, p)]
    told = Told(events=script_json(events), event_types=sorted({r["type"] for r in records}),
                starts=[{**s, "label": said_label(s["label"], said)}
                        for s in starts(type(game), records)])
    DESCRIBED.put(key, told)
    return told


def script_json(value: Any) -> str:
    """JSON safe inside a <script> element, as the templates' `tojson` writes it."""
    return str(htmlsafe_json_dumps(value, dumps=current_app.json.dumps))


def page_data(game: Game, token: str | None) -> dict[str, Any]:
    """What the page's script starts from beside its events in words: the game, the token."""
    said = narration_words()[0]  # in the page's language
    root = request.script_root
    return {
        "game_id": str(game.id),
        "game": game.KEY,
        "title": TITLES.get(game.KEY, game.KEY),
        "players": list(game.players),
        "status": game.status,
        "version": game.version,
        "options": dict(game.options),
        "lower_score_wins": game.LOWER_SCORE_WINS,
        "score_unit": said(game.NARRATOR.UNIT),
        "replay_url": f"{request.script_root}/games/{game.id}/replay/",
        "list_url": f"{request.script_root}/",
        "token": token,
        "annotations": [shown(r) for r in games().arbiter.annotation_records(game)],
        "annotations_url": f"{root}/games/{game.id}/annotations",
        "viewer_url": f"{root}/games/",
        # a fork's link to the step it began after, and the games forked from this one
        "parent": dict(game.parent) if game.parent else None,
        # an imported copy: the game it copies (its own annotations are never the original's)
        "origin": games().arbiter.origin(game),
        "forks": games().arbiter.forks(game.id),
    }


# The units a landmark counts (domain.core.landmarks), said in the page's language.
UNIT_WORDS = {"phase": N_("phase"), "round": N_("round"), "trick": N_("trick"), "turn": N_("turn")}


def said_label(label: str, gettext: Any) -> str:
    """'Phase 2 · round 3' in the page's language ('Durchgang 2 · Runde 3')."""
    parts = []
    for part in label.split(" · "):
        unit, _, number = part.lower().partition(" ")
        parts.append(f"{gettext(UNIT_WORDS[unit])} {number}" if unit in UNIT_WORDS else part)
    text = " · ".join(parts)
    return text[:1].upper() + text[1:]


def _wants_json() -> bool:
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def error_page(status: int, code: str, err: Exception, heading: str | None = None):
    if _wants_json():
        return error_response(status, code, error_text(err))
    html = render_template("error.html", status=status, message=error_text(err),
                           heading=heading)
    return html, status, SECURITY_HEADERS


@blp.errorhandler(GameNotFound)
def _not_found(err: GameNotFound):
    return error_page(404, "not_found", err)


@blp.errorhandler(Unauthorized)
def _unauthorized(err: Unauthorized):
    return error_page(401, "unauthorized", err)


@blp.errorhandler(Forbidden)
def _forbidden(err: Forbidden):
    return error_page(403, "forbidden", err)
