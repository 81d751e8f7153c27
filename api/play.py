"""The play page (issue 15): a seat's table, its legal moves as buttons, updated live.

`GET /games/{id}/play` serves one page for everybody: a player or the host (their invitation
link carries `?invite=<code>`, which the page's script exchanges once for the seat's credential:
service/table/invitations.py says why), or a spectator. The script keeps the credential in the tab's
sessionStorage (and the browser's localStorage), out of any address, and talks to the JSON routes
with `Authorization: Bearer`, and to the stream with `?token=` (EventSource sends no headers; a
stream's address is in no history). `?token=` on the page still works for clients that use it.
The request log records paths only (api.request_log), so no token or code is ever logged.

The server keeps only hashes of the tokens and codes: the host's page asks
`POST /games/{id}/invitations` once for each link and its QR code and keeps the answer.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

import segno
from flask import render_template, request, url_for
from flask.views import MethodView
from marshmallow import fields, validate
from werkzeug.exceptions import BadRequest

from api.addresses import is_loopback, unreachable
from api.auth import MAX_TOKEN_LENGTH, bearer_token, query_token
from api.errors import GruftBlueprint
from api.games import games, viewer
from api.i18n import gettext, narration_words
from api.live import keepalive_seconds
from api.schemas import MAX_CURSOR, CreateGame, Error, StrictSchema
from api.settings import settings
from api.viewer import HTML_PAGE, SECURITY_HEADERS, TITLES, error_page
from domain import available_games, game_class
from domain.core.words import N_, Phrase
from service import Forbidden, GameNotFound, Unauthorized
from service.table.access import is_host
from service.table.invitations import HOST_SEAT
from service.table.seats import BOT_KINDS

# Templates and scripts live beside the viewer's (api/templates, api/static), which they share.
blp = GruftBlueprint("play", __name__, description="The play page (HTML) and its invitations",
                     template_folder="templates")


def _option(option: Any) -> dict[str, Any]:
    return {"default": option.default, "low": option.low, "high": option.high,
            "choices": list(option.choices), "nullable": option.nullable}


# What the create form on the game list offers: each game's seats and options (domain OPTIONS).
NEW_GAME = {
    key: {
        "title": TITLES.get(key, key),
        "min_players": game_class(key).MIN_PLAYERS,
        "max_players": game_class(key).MAX_PLAYERS,
        "options": {name: _option(opt) for name, opt in game_class(key).OPTIONS.items()},
        "short_options": dict(game_class(key).SHORT_OPTIONS),
    }
    for key in available_games()
}


@blp.app_context_processor
def new_game_form() -> dict[str, Any]:
    """The create form's choices, for the game list's template."""
    fields = CreateGame().fields  # what this server's POST /games takes
    features = {"clock": "clock" in fields, "host_seat": "host_seat" in fields}
    return {"new_game": {"games": NEW_GAME, "bots": list(BOT_KINDS), "features": features,
                         "create_url": url_for("games.GameCollection"),
                         "games_url": f"{request.script_root}/games/"}}


# -- the page -------------------------------------------------------------------------------

@blp.route("/games/<game_id>/play", parameters=[
    {"in": "query", "name": "token", "schema": {"type": "string"}, "required": False,
     "description": "a player's or the host's token (the invitation link); the page drops it "
                    "from the address bar at once and keeps it in the tab's sessionStorage"}])
@blp.doc(responses={200: HTML_PAGE, 404: {"description": "not_found"}})
def play_page(game_id: str):
    """The web page to play a game: a seat's table, its legal moves, live updates (HTML)."""
    try:
        game = games().game(game_id)
    except GameNotFound as err:  # a page, as the viewer answers (docs/viewer.md), or JSON
        return error_page(404, "not_found", err)
    seat = _seat_of(game_id, request.args.get("token"))
    data = {
        "game_id": str(game.id),
        "game": game.KEY,
        "title": TITLES.get(game.KEY, game.KEY),
        "players": list(game.players),
        "status": game.status,
        "version": game.version,
        "options": dict(game.options),
        "lower_score_wins": game.LOWER_SCORE_WINS,
        "score_unit": gettext(game.NARRATOR.UNIT),
        "seat": seat,
        "heartbeat": keepalive_seconds(),  # the stream's ping: silence much longer is a drop
        # the page's own address as links to it are made (the host's link to keep)
        "page_url": external_url("play.play_page", game_id=game.id),
        "urls": {
            "game": url_for("games.GameResource", game_id=game.id),
            "view": url_for("games.SeatView", game_id=game.id),
            "legal_moves": url_for("games.LegalMoves", game_id=game.id),
            "commands": url_for("games.Commands", game_id=game.id),
            "stream": url_for("live.Stream", game_id=game.id),
            "abort": url_for("live.Abort", game_id=game.id),
            "invitations": url_for("play.Invitations", game_id=game.id),
            "accept": url_for("play.AcceptInvitation", game_id=game.id),
            "viewer": url_for("viewer.viewer_page", game_id=game.id),
            "rules": url_for("rules.rules_page", game=game.KEY),
            "narration": url_for("play.NarrationResource", game_id=game.id),
            "seats": f"{url_for('games.GameResource', game_id=game.id)}/seats/",
            "rematch": url_for("table.Rematch", game_id=game.id),
            "clocks_start": url_for("table.ClocksStart", game_id=game.id),
            "games": f"{request.script_root}/games/",
            "list": url_for("viewer.game_list"),
        },
    }
    html = render_template("play.html", data=data, title=data["title"])
    return html, 200, SECURITY_HEADERS


def _seat_of(game_id: str, token: str | None) -> dict[str, Any] | None:
    """Who the page's `?token=` is for (the script keeps it only if valid), else None."""
    try:
        token = query_token(token)
        if token is None:
            return None
        who = games().access.authenticate(game_id, token)
    except Unauthorized:
        # Shown as a spectator with a note, so the script can still drop the bad link's token.
        return {"role": "invalid"}
    if who.host or who.organiser:  # the organiser, playing a seat of their own (host_seat) or none
        return {"role": "host", "you": who.player}
    return {"role": "player", "you": who.player}


# -- invitations ------------------------------------------------------------------------------

class InvitationsBody(StrictSchema):
    players = fields.List(fields.String(validate=validate.Length(1, 200)),
                          load_default=list, validate=validate.Length(0, 12),
                          metadata={"description": "the seats to invite (again): each gets a new "
                                    "code, and its earlier code and the credential got with it "
                                    "stop working"})
    tokens = fields.List(fields.String(validate=validate.Length(1, MAX_TOKEN_LENGTH)),
                         load_default=list, validate=validate.Length(0, 12),
                         metadata={"description": "player tokens of this game, as POST /games "
                                   "answered them: another way to name their seats"})
    host = fields.Boolean(load_default=True, metadata={
        "description": "also a new host link (the earlier one stops working)"})


class Invitation(StrictSchema):
    player = fields.String(required=True)
    url = fields.String(required=True, metadata={
        "description": "the play page with ?invite=<code>: the page exchanges the code, once, "
                       "for the seat's credential (POST /games/{id}/invitations/accept)"})
    qr = fields.String(required=True, metadata={"description": "the link as a QR code: an SVG "
                       "data: URI, for an <img>"})


class HostLink(StrictSchema):
    url = fields.String(required=True, metadata={"description": "the play page with a code the "
                        "page exchanges, once, for a credential of the host"})
    qr = fields.String(required=True)


class InvitationList(StrictSchema):
    invitations = fields.List(fields.Nested(Invitation), required=True)
    host = fields.Nested(HostLink, metadata={"description": "the host's own link, to open the "
                         "host's page on another device (when asked for)"})
    loopback = fields.Boolean(required=True, metadata={"description": "whether the links point "
                              "at a loopback address (127.0.0.1, localhost, ::1): other devices "
                              "cannot open them; set GRUFT_PUBLIC_URL, or open the page by the "
                              "server's LAN address"})
    unreachable = fields.Boolean(required=True, metadata={"description": "whether the links "
                                 "point where no other device can go: a loopback address, the "
                                 "unspecified address (0.0.0.0, ::: the page was opened there), "
                                 "or a GRUFT_PUBLIC_URL naming an address this server does not "
                                 "listen on"})


class AcceptBody(StrictSchema):
    code = fields.String(required=True, validate=validate.Length(1, MAX_TOKEN_LENGTH),
                         metadata={"description": "the code of an invitation link (?invite=)"})


class Accepted(StrictSchema):
    role = fields.String(required=True, metadata={"description": "`player` or `host`"})
    player = fields.String(allow_none=True, required=True, metadata={
        "description": "the seat (null for the host's link)"})
    token = fields.String(required=True, metadata={
        "description": "the seat's credential, as a bearer token: keep it out of any address"})


def page_link(game_id: Any, code: str) -> tuple[str, bool]:
    """The play page's link with an invitation's `code`, and whether it points at a loopback
    address: under GRUFT_PUBLIC_URL where set, else at the address the request used."""
    page = external_url("play.play_page", game_id=game_id)
    return f"{page}?invite={quote(code, safe='')}", is_loopback(urlsplit(page).hostname or "")


def external_url(endpoint: str, **values: Any) -> str:
    """An absolute address of this server's: under GRUFT_PUBLIC_URL where it is set, else at
    the `Host` the request named (one of GRUFT_TRUSTED_HOSTS where those are set: Flask refuses
    any other before a route runs). A request without a usable `Host` (none, or a malformed one,
    which Werkzeug reads as empty) gets a 400 rather than a link to `http:///…`."""
    base = settings().public_url
    if base:
        return base + url_for(endpoint, **values)
    if not request.host:
        raise BadRequest(Phrase(N_("the request's Host header is missing or malformed, so no "
                                   "link to this server can be made from it")))
    return url_for(endpoint, _external=True, **values)


def links_unreachable(game_id: Any) -> bool:
    """Whether the links point where no other device can go (issue 33, item 3): loopback,
    the unspecified address, or a public URL this server does not listen at."""
    return unreachable(external_url("play.play_page", game_id=game_id),
                       public=bool(settings().public_url))


def qr_code(url: str) -> str:
    return segno.make(url, error="m").svg_data_uri(scale=4, border=2)


@blp.route("/games/<game_id>/invitations")
class Invitations(MethodView):
    @blp.arguments(InvitationsBody())
    @blp.response(200, InvitationList)
    @blp.alt_response(400, schema=Error, description="bad_request")
    @blp.alt_response(401, schema=Error, description="unauthorized: no host token, or a token "
                      "that is not a player's of this game")
    @blp.alt_response(403, schema=Error, description="forbidden: not the host")
    @blp.alt_response(404, schema=Error, description="not_found")
    def post(self, body, game_id):
        """New invitation links for the seats named (and the host's own link), each with its
        QR code.

        A link carries a code, never a token: the page it opens exchanges the code, once, for
        the seat's credential (POST /games/{id}/invitations/accept), so an address a browser
        keeps opens nothing. Asking again for a seat makes a new link: its earlier code and the
        credential got with it stop working (a lost or misdirected link). Seats are named by
        name or by the tokens POST /games answered; the links come in seat order and use
        GRUFT_PUBLIC_URL where it is set, else the address this request used (`loopback` says
        when other devices cannot reach it).
        """
        store = games()
        who = store.access.authenticate(game_id, bearer_token())
        if not is_host(who):
            raise Forbidden(N_("only the host issues invitations"))
        seats = set(body["players"])
        for token in body["tokens"]:
            named = store.access.authenticate(game_id, token)
            if named.player is None or named.organiser:
                raise Unauthorized(N_("an invitation is made from a player's token"))
            seats.add(named.player)
        game = store.game(game_id)
        order = [p for p in game.players if p in seats] + sorted(seats - set(game.players))
        codes = store.invite(game_id, who, order + ([HOST_SEAT] if body["host"] else []))
        invitations, loopback = [], False
        for player in order:
            url, loopback = page_link(game.id, codes[player])
            invitations.append({"player": player, "url": url, "qr": qr_code(url)})
        answer: dict[str, Any] = {"invitations": invitations}
        if body["host"]:
            url, loopback = page_link(game.id, codes[HOST_SEAT])
            answer["host"] = {"url": url, "qr": qr_code(url)}
        answer["loopback"] = loopback or page_link(game.id, "")[1]
        answer["unreachable"] = links_unreachable(game.id)
        return answer


@blp.route("/games/<game_id>/invitations/accept")
class AcceptInvitation(MethodView):
    @blp.arguments(AcceptBody())
    @blp.response(200, Accepted)
    @blp.alt_response(400, schema=Error, description="bad_request")
    @blp.alt_response(401, schema=Error, description="unauthorized: no such code, or one used "
                      "already or issued again since")
    @blp.alt_response(404, schema=Error, description="not_found")
    @blp.alt_response(409, schema=Error, description="conflict: accepted elsewhere meanwhile")
    def post(self, body, game_id):
        """Exchange an invitation's code for the seat's credential; the code then dies.

        What the play page does with the code of the link it was opened by, before anything
        else: the credential (a bearer token for that seat, or the host's) is kept by the
        page out of any address; the code left in the browser's history opens nothing.
        """
        store = games()
        seat, credential = store.accept_invitation(game_id, body["code"])
        if seat == HOST_SEAT:  # the organiser's seat, where they play one (host_seat)
            host_seat = store.access.credentials(game_id).host_seat
            return {"role": "host", "player": host_seat, "token": credential}
        return {"role": "player", "player": seat, "token": credential}


# -- the log in words ---------------------------------------------------------------------------

class NarrationQuery(StrictSchema):
    after = fields.Integer(load_default=0, validate=validate.Range(0, MAX_CURSOR),
                           metadata={"description": "only the events after this version"})


class Told(StrictSchema):
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    text = fields.String(required=True, metadata={"description": "the event in plain words"})


class Narration(StrictSchema):
    events = fields.List(fields.Nested(Told), required=True)


@blp.route("/games/<game_id>/narration")
class NarrationResource(MethodView):
    @blp.arguments(NarrationQuery(), location="query")
    @blp.response(200, Narration)
    @blp.alt_response(400, schema=Error, description="bad_request")
    @blp.alt_response(401, schema=Error, description="unauthorized")
    @blp.alt_response(404, schema=Error, description="not_found")
    @blp.alt_response(429, schema=Error, description="rate_limited (GRUFT_READ_LIMIT)")
    def get(self, query, game_id):
        """The log in plain words (as the replay viewer tells it), as the caller may see it.

        Told from the caller's redacted log: a seat reads its own secrets and nobody else's; a
        spectator reads none. The last event's words may change once the next one is known
        (who won the trick a card took), so a page asks again from one event earlier.
        """
        said, said_plural = narration_words()  # in the reader's language
        told = games().reads.narration(game_id, viewer(game_id), query["after"], gettext=said,
                                       ngettext=said_plural)
        return {"events": told}
