"""The web replay viewer (issue 7): a game list at `/` and a page that steps through a game.

Access follows `replay`: the host (token) any time, anyone once the game is finished. A browser
cannot send an Authorization header when it navigates, so the page also takes the token as
`?token=`; the page's script then calls the JSON endpoints with `Authorization: Bearer` and takes
the token out of the address bar, so a shared `?step=n` link never carries it.

The plain-words event descriptions live here, one small narrator per game, and are served with
the page. A player's perspective gets each event described as that player saw it then: the data
goes through the domain's own redaction (`redact_event_data`), so the page never invents a rule
about what is secret.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from flask import render_template, request
from flask_smorest import Blueprint

from api.auth import MAX_TOKEN_LENGTH, bearer_token
from api.errors import error_response
from api.games import games
from api.schemas import MAX_CURSOR
from domain import available_games, game_class
from domain.core import BadSetup, Game, Viewer
from domain.core.visibility import redact_event_data
from service import Forbidden, GameNotFound, Unauthorized

blp = Blueprint("viewer", __name__, description="The web replay viewer (HTML pages)",
                template_folder="templates", static_folder="static",
                static_url_path="/viewer/static")

TITLES = {"vampire-queen": "Vampire Queen", "voodoo-prince": "Voodoo Prince", "vampir": "Vampir",
          "vampiring": "VampiRing"}
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

HTML_PAGE = {"description": "an HTML page", "content": {"text/html": {"schema": {"type": "string"}}}}


# -- pages --------------------------------------------------------------------------------

@blp.route("/", parameters=[
    {"in": "query", "name": name, "schema": {"type": kind}, "required": False}
    for name, kind in (("game", "string"), ("status", "string"), ("player", "string"),
                       ("after", "integer"))])
@blp.doc(responses={200: HTML_PAGE})
def game_list():
    """The stored games, oldest first, filtered, each linking to its replay viewer (HTML)."""
    keys = available_games()
    game = request.args.get("game") or None
    status = request.args.get("status") or None
    player = (request.args.get("player") or "").strip()[:40] or None
    after = request.args.get("after", "0")
    # A hand-edited query string narrows nothing rather than failing.
    game = game if game in keys else None
    status = status if status in ("in_progress", "finished") else None
    after = int(after) if after.isdigit() and int(after) <= MAX_CURSOR else 0
    page, cursor = games().list_games(game, status, player, after, LIST_PAGE_SIZE)
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
                    "an Authorization header when it navigates)"}])
@blp.doc(responses={200: HTML_PAGE, 401: {"description": "unauthorized"},
                    403: {"description": "forbidden: in progress and not the host"},
                    404: {"description": "not_found"}})
def viewer_page(game_id: str):
    """A web page that steps through a game (host any time, anyone once it is finished)."""
    token = page_token()
    who = games().authenticate(game_id, token)
    game = games().game(game_id)
    if not (who.host or game.finished):
        raise Forbidden("This game is still being played. Its replay opens to everybody once it "
                        "is finished; the host can watch it now with ?token=<host token>.")
    records = games().records(game_id)
    # The script needs the token only while the JSON endpoints still ask for it.
    data = page_data(game, records, token=None if game.finished else token)
    html = render_template("viewer.html", data=data, title=data["title"])
    return html, 200, SECURITY_HEADERS


def page_token() -> str | None:
    """The caller's token: the Authorization header, else the `token` query parameter."""
    token = bearer_token()
    if token is not None:
        return token
    token = request.args.get("token")
    if token is None:
        return None
    token = token.strip()
    if not token or len(token) > MAX_TOKEN_LENGTH:
        raise Unauthorized("the token parameter is empty or too long")
    return token


def page_data(game: Game, records: list[dict[str, Any]], token: str | None) -> dict[str, Any]:
    """Everything the page's script starts from: the game, its described events, the token."""
    players = list(game.players)
    return {
        "game_id": str(game.id),
        "game": game.KEY,
        "title": TITLES.get(game.KEY, game.KEY),
        "players": players,
        "status": game.status,
        "version": len(records),
        "options": dict(game.options),
        "replay_url": f"{request.script_root}/games/{game.id}/replay/",
        "list_url": f"{request.script_root}/",
        "token": token,
        "events": describe_events(game.KEY, records, players, dict(game.options)),
    }


def _wants_json() -> bool:
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def _error_page(status: int, code: str, err: Exception):
    if _wants_json():
        return error_response(status, code, str(err))
    html = render_template("error.html", status=status, message=str(err))
    return html, status, SECURITY_HEADERS


@blp.errorhandler(GameNotFound)
def _not_found(err: GameNotFound):
    return _error_page(404, "not_found", err)


@blp.errorhandler(Unauthorized)
def _unauthorized(err: Unauthorized):
    return _error_page(401, "unauthorized", err)


@blp.errorhandler(Forbidden)
def _forbidden(err: Forbidden):
    return _error_page(403, "forbidden", err)


# -- plain words for every event ---------------------------------------------------------

def describe_events(key: str, records: list[dict[str, Any]], players: list[str],
                    options: dict[str, Any], *, strict: bool = False) -> list[dict[str, Any]]:
    """Each event in plain words, plus the words each player saw where their view differed.

    Texts are written walking the log in order, because some need context (the led colour, the
    lead of a round). A player's text comes from the event data as redacted for that player
    while the game was running. `strict` lets a describer's error surface (tests).
    """
    narrator = NARRATORS.get(key, Narrator)(players, options)
    try:
        secret_fields = game_class(key).SECRET_FIELDS
    except BadSetup:
        secret_fields = {}
    out = []
    for i, record in enumerate(records):
        following = records[i + 1] if i + 1 < len(records) else None
        type_, data = record["type"], record["data"]
        text = narrator.text(type_, data, following, strict=strict)
        seen = {}
        for player in players:
            shown = redact_event_data(secret_fields, type_, data, Viewer(player=player), False)
            if shown != data:
                own = narrator.text(type_, shown, following, strict=strict)
                if own != text:
                    seen[player] = own
        narrator.learn(type_, data)
        item = {"version": record["version"], "type": type_, "text": text}
        if seen:
            item["seen"] = seen
        out.append(item)
    return out


NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
                8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}


def names(items: list[str]) -> str:
    """'Ann', 'Ann and Bob', 'Ann, Bob and Cid'."""
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def tally(values: dict[str, Any]) -> str:
    """'Ann 3, Bob 0'."""
    return ", ".join(f"{name} {value}" for name, value in values.items())


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 card', '2 cards'."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


class Narrator:
    """Plain words for the events every game shares; a game's narrator adds its own `on_<Type>`."""

    KEY = ""
    RULE = ""  # the ruling the end of the game cites
    UNIT = "points"

    def __init__(self, players: list[str], options: dict[str, Any]) -> None:
        self.players = list(players)
        self.options = dict(options)

    def text(self, type_: str, data: dict[str, Any], following: dict[str, Any] | None, *,
             strict: bool = False) -> str:
        """One event in plain words; an event this page does not know is named with its data."""
        method: Callable[..., str] | None = getattr(self, f"on_{type_}", None)
        if method is None:
            if strict:
                raise LookupError(f"no description for {type_}")
            return f"{type_}: {data}"
        try:
            return method(data, following)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            # A viewer must show the game even if a game's events change shape under it.
            if strict:
                raise
            return f"{type_}: {data}"

    def learn(self, type_: str, data: dict[str, Any]) -> None:
        """Remember what later texts need from this event (the full data)."""
        method = getattr(self, f"after_{type_}", None)
        if method is not None:
            method(data)

    def setup_words(self) -> str:
        """The game's options in words."""
        return ""

    def on_Created(self, d: dict, _next: dict | None) -> str:
        text = f"{names(d['players'])} sit down to {TITLES.get(self.KEY, 'the game')}"
        text += f" ({self.setup_words()})." if self.setup_words() else "."
        commitment = str(d.get("seed_commitment", ""))[:12]
        if "seed" in d:
            text += f" The seed is {d['seed']} (committed as {commitment}…)"
            text += "; the deal is stacked by hand." if d.get("deal") else "."
        else:
            text += f" The seed is committed as {commitment}… and revealed at the end."
        return text

    def ending(self, d: dict, lead: str = "The game is over") -> str:
        """Who won with how much, and the final scores."""
        winners, scores = list(d.get("winners", [])), dict(d.get("scores", {}))
        if not winners:
            text = f"{lead}: nobody wins"
        elif len(winners) == 1:
            text = f"{lead}: {winners[0]} wins with {scores.get(winners[0])} {self.UNIT}"
        else:
            text = (f"{lead}: {names(winners)} share the win with "
                    f"{scores.get(winners[0])} {self.UNIT}")
        rule = f" ({self.RULE})" if self.RULE else ""
        return f"{text}{rule}. Final scores: {tally(scores)}."


# Voodoo Prince ------------------------------------------------------------------------------

VP_COLOURS = {"R": "red", "B": "blue", "G": "green", "Y": "yellow", "P": "purple"}
VP_TOP = {2: 10, 3: 10, 4: 12, 5: 15}  # the rules page's table: highest value in play
VP_TO_FINISH = {2: 7, 3: 4, 4: 3, 5: 3}


class VoodooPrinceNarrator(Narrator):
    """Voodoo Prince: deals, trump, cards, tricks (VP-8 doubles, VP-7 voodoo), finishing."""

    KEY = "voodoo-prince"
    RULE = "VP-13"

    def __init__(self, players: list[str], options: dict[str, Any]) -> None:
        super().__init__(players, options)
        self.trump: str | None = None
        self.trick: list[dict[str, str]] = []
        self.tricks = {p: 0 for p in players}

    def setup_words(self) -> str:
        return plural(self.options.get("rounds", 5), "round")

    def on_RoundDealt(self, d: dict, _next: dict | None) -> str:
        hands = d.get("hands") or {}
        each = f" {len(next(iter(hands.values())))} cards to each player" if hands else ""
        text = f"Round {d['round']} of {self.options.get('rounds')}: {d['dealer']} deals{each}"
        if d.get("trump"):
            return f"{text}; the trump indicator drawn is {VP_COLOURS[d['trump']]} (VP-2)."
        return f"{text}, looks at the new hand and will choose trump (VP-3)."

    def after_RoundDealt(self, d: dict) -> None:
        self.trump, self.trick, self.tricks = d.get("trump"), [], {p: 0 for p in self.players}

    def on_TrumpChosen(self, d: dict, _next: dict | None) -> str:
        return f"{d['player']} chooses {VP_COLOURS[d['trump']]} as trump and leads (VP-3)."

    def after_TrumpChosen(self, d: dict) -> None:
        self.trump = d["trump"]

    def on_CardPlayed(self, d: dict, following: dict | None) -> str:
        player, card = d["player"], d["card"]
        if not self.trick:
            text = f"{player} leads {card}"
        else:
            led = self.trick[0]["card"][0]
            if card[0] == led:
                text = f"{player} plays {card}"
            elif card[0] == self.trump:
                text = f"{player} cannot follow {VP_COLOURS[led]} and trumps with {card} (VP-5)"
            else:
                text = f"{player} cannot follow {VP_COLOURS[led]} and discards {card} (VP-5)"
        won = following if following and following["type"] == "TrickWon" else None
        if won and won["data"].get("winner") == player and won["data"].get("card") == card:
            text += " and wins the trick"
            voodoo = self.voodoo(card, [*self.trick, d])
            if voodoo:
                text += f"; the voodoo 0 beats the {voodoo} (VP-7)"
            if won["data"].get("count") == 2:
                text += "; it counts twice (VP-8)"
        return text + "."

    def voodoo(self, card: str, trick: list[dict[str, str]]) -> str | None:
        """The top card a winning 0 beat (VP-7), if it did."""
        top = f"{card[0]}{VP_TOP.get(len(self.players), 10)}"
        cards = [e["card"] for e in trick]
        return top if card[1:] == "0" and top in cards else None

    def after_CardPlayed(self, d: dict) -> None:
        self.trick = [*self.trick, {"player": d["player"], "card": d["card"]}]

    def on_TrickWon(self, d: dict, _next: dict | None) -> str:
        winner, count = d["winner"], d["count"]
        shown = ", ".join(f"{e['player']} {e['card']}" for e in d["trick"])
        text = f"{winner} takes the trick ({shown}) with {d['card']}"
        voodoo = self.voodoo(d["card"], d["trick"])
        if voodoo:
            text += f": the voodoo 0 beats the {voodoo} (VP-7)"
        if count == 2:
            text += ": won by a 5 or a 7, it counts as two tricks (VP-8)"
        return f"{text}; {winner} now holds {plural(self.tricks[winner] + count, 'trick')}."

    def after_TrickWon(self, d: dict) -> None:
        self.tricks[d["winner"]] += d["count"]
        self.trick = []

    def on_PlayerFinished(self, d: dict, _next: dict | None) -> str:
        player = d["player"]
        held = self.tricks[player]
        if len(self.players) == 2:
            return (f"{player} reaches {plural(held, 'trick')} and ends the round, scoring "
                    f"{d['points']} for the opponent's tricks (VP-12).")
        text = (f"{player} has {plural(held, 'trick')} and is out of the round, scoring "
                f"{d['points']} for the tricks the others hold (VP-10)")
        return f"{text}; {d['leader']} leads next (VP-9)." if d.get("leader") else f"{text}."

    def on_RoundEnded(self, d: dict, _next: dict | None) -> str:
        last, points = d["last"], d["points"].get(d["last"], 0)
        if len(self.players) == 2:
            text = (f"Round {d['round']} ends: {last} scores {points}, what they lack of "
                    f"seven tricks (VP-12)")
        else:
            text = (f"Round {d['round']} ends with {last} left last, scoring {points} for "
                    f"their own tricks (VP-11)")
        more = d["round"] < self.options.get("rounds", d["round"])
        return f"{text}; {last} deals the next round (VP-3)." if more else f"{text}."

    def on_GameEnded(self, d: dict, _next: dict | None) -> str:
        return self.ending(d)


# Vampire Queen ------------------------------------------------------------------------------

VQ_SLAYERS = ("S15", "S20")


def vq_set(cards: list[str]) -> str:
    """Vampire Queen cards in words: 'a 6', 'two 13s', 'a 7 and a Queen', 'two Queens'."""
    counts = Counter(cards)
    parts = []
    for code, n in counts.items():
        if code == "Q":
            continue
        if n == 1:
            parts.append(f"{'an' if code in ('8', '11') else 'a'} {code}")
        else:
            parts.append(f"{NUMBER_WORDS.get(n, n)} {code}s")
    queens = counts.get("Q", 0)
    if queens:
        parts.append("a Queen" if queens == 1 else f"{NUMBER_WORDS.get(queens, queens)} Queens")
    return names(parts)


class VampireQueenNarrator(Narrator):
    """Vampire Queen: deals, leads and raises, slayer rounds, round and phase ends."""

    KEY = "vampire-queen"
    RULE = "VQ-17"
    UNIT = "minus points"

    def __init__(self, players: list[str], options: dict[str, Any]) -> None:
        super().__init__(players, options)
        self.plays = 0  # plays (not passes) in the round so far
        self.slayer: str | None = None
        self.forced: str | None = None

    def setup_words(self) -> str:
        return plural(self.options.get("phases", 5), "phase")

    def on_PhaseDealt(self, d: dict, _next: dict | None) -> str:
        hands = d.get("hands") or {}
        each = f" {len(next(iter(hands.values())))} cards each;" if hands else ""
        slayers = d["slayers"]
        if slayers["S15"] == slayers["S20"]:
            holders = f"{slayers['S20']} holds both slayers and starts"
        else:
            holders = (f"{slayers['S15']} holds the slayer S15, {slayers['S20']} holds S20 "
                       "and starts")
        rule = "VQ-2" if d["phase"] == 1 else "VQ-3"
        return (f"Phase {d['phase']} of {self.options.get('phases')} is dealt:{each} "
                f"{holders} ({rule}).")

    def after_PhaseDealt(self, d: dict) -> None:
        self.plays, self.slayer, self.forced = 0, None, None

    def on_Played(self, d: dict, _next: dict | None) -> str:
        player, cards = d["player"], d["cards"]
        if self.plays == 0 and cards[0] in VQ_SLAYERS:
            return (f"{player} leads the vampire slayer {cards[0]}: a slayer round, where "
                    "every other player must play one vampire card and the highest takes all "
                    "(VQ-9, VQ-10, VQ-11).")
        if self.slayer is not None:
            note = ", where it counts 1" if cards == ["Q"] else ""
            return f"{player} plays {vq_set(cards)} into the slayer round{note} (VQ-10)."
        note, rules = "", ""
        if cards and all(c == "Q" for c in cards):
            note = ", which alone counts 14" if len(cards) == 1 else ", which alone count 14"
            rules = ", VQ-6"
        elif "Q" in cards:
            counting = "the Queen counting" if cards.count("Q") == 1 else "the Queens counting"
            note, rules = f", {counting} {d['value']}", ", VQ-6"
        if self.plays == 0:
            size = "one card" if len(cards) == 1 else f"{NUMBER_WORDS.get(len(cards))} cards"
            return (f"{player} leads {vq_set(cards)}{note}; the others raise with {size} "
                    f"of a higher value or pass (VQ-4, VQ-5{rules}).")
        return f"{player} raises with {vq_set(cards)}{note} (VQ-5{rules})."

    def after_Played(self, d: dict) -> None:
        if self.plays == 0 and d["cards"][0] in VQ_SLAYERS:
            self.slayer = d["cards"][0]
        self.plays += 1

    def on_Passed(self, d: dict, _next: dict | None) -> str:
        if d.get("forced"):
            return (f"{d['player']} holds only the other slayer and must pass; "
                    f"{d['player']} will take the round's cards (VQ-12).")
        return f"{d['player']} passes (VQ-5)."

    def after_Passed(self, d: dict) -> None:
        if d.get("forced"):
            self.forced = d["player"]

    def on_Skipped(self, d: dict, _next: dict | None) -> str:
        return f"{d['player']} has no cards left and is skipped (VQ-8)."

    def on_RoundEnded(self, d: dict, _next: dict | None) -> str:
        taker, cards, start = d.get("taker"), d["cards"], d["start"]
        count = plural(len(cards), "card")
        if taker is None:
            out = "the card played is" if len(cards) == 1 else f"the {count} played are"
            return (f"Round {d['round']} ends: {start} played the highest set and starts the "
                    f"next round; {out} out for this phase (VQ-7).")
        if taker == self.forced:
            return (f"Round {d['round']} ends: {taker}, who had to pass, takes all {count}, "
                    f"the slayer {self.slayer} included, and starts the next round (VQ-12).")
        return (f"The slayer round ends: {taker} played the highest card and takes all {count}, "
                f"the slayer {self.slayer} included, and starts the next round (VQ-11); "
                f"{taker} may not lead {self.slayer} straight away (VQ-14).")

    def after_RoundEnded(self, d: dict) -> None:
        self.plays, self.slayer, self.forced = 0, None, None

    def on_PhaseScored(self, d: dict, _next: dict | None) -> str:
        text = (f"Phase {d['phase']} ends with an empty hand (VQ-15); minus points for the "
                f"cards left in hand: {tally(d['minus'])} (VQ-16)")
        return f"{text}. Totals: {tally(d['scores'])}." if d["phase"] > 1 else f"{text}."

    def on_GameEnded(self, d: dict, _next: dict | None) -> str:
        return self.ending(d, "The game is over; the fewest minus points win")


# Vampir -------------------------------------------------------------------------------------

def va_heads(cards: list[str]) -> int:
    """Heads a set of Vampir cards shows (a joker counts one, VA-10)."""
    return sum(2 if c.endswith("2") else 1 for c in cards)


def va_cards(cards: list[str]) -> str:
    """Vampir card codes in words."""
    return names(["a Somewhere joker" if c == "W" else c for c in cards])


class VampirNarrator(Narrator):
    """Vampir: deals, draws, discards, hunts and collects, colour-by-colour scoring."""

    KEY = "vampir"
    RULE = "VA-11"

    def __init__(self, players: list[str], options: dict[str, Any]) -> None:
        super().__init__(players, options)
        self.pile = 0

    def setup_words(self) -> str:
        return plural(self.options.get("rounds", 3), "round")

    def on_RoundDealt(self, d: dict, _next: dict | None) -> str:
        return (f"Round {d['round']} of {self.options.get('rounds')}: four cards each, "
                f"{d['draw_pile_size']} in the draw pile and one vampire face up under each "
                f"location; {d['start']} starts (VA-1).")

    def after_RoundDealt(self, d: dict) -> None:
        self.pile = d["draw_pile_size"]

    def on_Drew(self, d: dict, _next: dict | None) -> str:
        left = d["draw_pile_size"]
        if "cards" in d:
            text = f"{d['player']} draws {va_cards(d['cards'])}"
        else:
            text = f"{d['player']} draws {plural(self.pile - left, 'card')}"
        if left == 0:
            return f"{text}, the last of the pile: the round ends at once (VA-8)."
        return f"{text}; {left} left in the pile (VA-2)."

    def after_Drew(self, d: dict) -> None:
        self.pile = d["draw_pile_size"]

    def on_Discarded(self, d: dict, _next: dict | None) -> str:
        return f"{d['player']} discards {va_cards([d['card']])} under the {d['location']} (VA-3)."

    def on_Hunted(self, d: dict, _next: dict | None) -> str:
        cards = d["cards"]
        text = (f"{d['player']} lays out a {d['colour']} hunt of "
                f"{plural(va_heads(cards), 'head')}: {va_cards(cards)} (VA-4, VA-6)")
        return text + self.replaced(d)

    def on_Collected(self, d: dict, _next: dict | None) -> str:
        taken, added = d["taken"], d["cards"]
        hunt = taken + added
        text = (f"{d['player']} collects {va_cards(taken)} from under the {d['location']}"
                f"{' and adds ' + va_cards(added) if added else ''}: a {d['location']} hunt of "
                f"{plural(va_heads(hunt), 'head')} (VA-5)")
        return text + self.replaced(d)

    @staticmethod
    def replaced(d: dict) -> str:
        """The old hunt a new one pushes out (VA-7), if any."""
        if not d.get("replaced"):
            return "."
        return f"; the old {d.get('colour') or d.get('location')} hunt leaves the game (VA-7)."

    def on_RoundScored(self, d: dict, _next: dict | None) -> str:
        if d["reason"] == "six_colours":
            why = f"{d['ended_by']} shows hunts in all six colours"
        else:
            why = "the draw pile is empty"
        lost = [f"{colour}: {names(who)}" for colour, who in d["lost"].items() if who]
        losses = (f"the weakest hunts are lost ({'; '.join(lost)})" if lost
                  else "no hunt is lost")
        return (f"Round {d['round']} ends: {why} (VA-8). Cards in hand are out (VA-9); "
                f"{losses} (VA-10). Points for heads still shown: {tally(d['points'])} (VA-11).")

    def on_GameFinished(self, d: dict, _next: dict | None) -> str:
        return self.ending(d)


# VampiRing ----------------------------------------------------------------------------------

VR_SHAPES = {"M": "Man", "W": "Wolf", "B": "Bat"}
VR_CHANGES = {"a": "Man→Wolf→Bat→Man", "b": "Man→Bat→Wolf→Man"}
VR_DIRECTIONS = {"cw": "clockwise", "ccw": "counter-clockwise"}
VR_EFFECTS = {"garlic": "wounds count double", "mirror": "every relation reversed",
              "tower": "Men are safe", "forest": "Wolves are safe", "cave": "Bats are safe"}


def vr_card(card: str) -> str:
    """A ring card in words: 'the tower', "Ann's Home"."""
    return f"{card[5:]}'s Home" if card.startswith("home:") else f"the {card}"


class VampiRingNarrator(Narrator):
    """VampiRing: the ring, secret moves, each turn's fights, hauntings and eliminations."""

    KEY = "vampiring"
    RULE = "VR-10, VR-11"

    def setup_words(self) -> str:
        words = f"{self.options.get('variant', 'castle')} variant"
        if self.options.get("max_turns"):
            words += f", at most {plural(self.options['max_turns'], 'turn')}"
        return words

    def on_RingLaid(self, d: dict, _next: dict | None) -> str:
        return (f"The ring of {len(d['ring'])} cards is laid; every family starts as a Man, a "
                "Wolf and a Bat on its own Home with 8 drops of blood (VR-1, VR-2).")

    def on_MoveSubmitted(self, d: dict, _next: dict | None) -> str:
        if "metamorphosis" not in d:
            return f"{d['player']} submits a secret move (VR-4)."
        return (f"{d['player']} secretly chooses metamorphosis {d['metamorphosis']} "
                f"({VR_CHANGES[d['metamorphosis']]}) and {VR_DIRECTIONS[d['direction']]} "
                "(VR-4).")

    def on_TurnResolved(self, d: dict, _next: dict | None) -> str:
        parts = []
        for fight in d["fights"]:
            shapes = {(v["player"], v["id"]): v["shape"] for v in fight["vampires"]}
            hurt = ", ".join(f"{w['player']}'s {VR_SHAPES[shapes[(w['player'], w['id'])]]} "
                             f"−{w['wounds']}" for w in fight["wounds"])
            effect = VR_EFFECTS.get(fight["card"])
            if fight["card"].startswith("home:") and self.options.get("variant") == "castle":
                effect = f"{fight['card'][5:]}'s family is safe at home"
            where = vr_card(fight["card"]) + (f" ({effect}, VR-7)" if effect else "")
            parts.append(f"a fight on {where}: {hurt or 'nobody is hurt'} (VR-6)")
        for haunt in d["haunted"]:
            parts.append(f"{haunt['player']}'s vampire is haunted on {haunt['home']}'s Home (VR-8)")
        text = f"Turn {d['turn']} resolves (VR-5): " + ("; ".join(parts) or "no fight")
        lost = {p: n for p, n in d["lost"].items() if n}
        text += f". Blood lost: {tally(lost)} (VR-9)" if lost else ". No blood is lost"
        if d["eliminated"]:
            text += f"; {names(d['eliminated'])} eliminated (VR-9)"
        return text + "."

    def on_GameEnded(self, d: dict, _next: dict | None) -> str:
        if d.get("reason") == "max_turns":
            return self.ending(d, "The turn limit is reached (VR-12)")
        if d.get("reason") == "no_family":
            return self.ending(d, "No family is left")
        return self.ending(d, "One family is left")


NARRATORS: dict[str, type[Narrator]] = {
    "voodoo-prince": VoodooPrinceNarrator,
    "vampire-queen": VampireQueenNarrator,
    "vampir": VampirNarrator,
    "vampiring": VampiRingNarrator,
}
