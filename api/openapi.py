"""What /openapi.json adds to the schemas' own description: the rules the server enforces.

The marshmallow schemas describe the shapes; a created game's player count and options depend
on the game, which a schema field cannot say. So the finished document gets, from the games'
own declarations (domain/<game>/): one `oneOf` branch per game on `CreateGame`, each a whole
body under its own name (`CreateVampiringGame`: its key, its player counts, its options and their
bounds), the seed's two forms, the replay formats taken (`format_version`), an object's bounds as
`minProperties`/`maxProperties`, and OpenAPI links from
`POST /games` and `GET /games` to every operation that takes a `game_id`, so a client (or a
stateful fuzzer) can follow a created or listed game to its routes.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from domain import GAMES, game_class
from domain.core.dealing import SEED_MAX_BITS, SEED_MAX_LENGTH
from replays.document import FORMAT_VERSIONS

METHODS = ("get", "post", "put", "patch", "delete")
# Characters the name rule refuses (domain.core.names), as far as a pattern can list them: every
# control (Cc), separator (Zl, Zp), private-use (Co) and surrogate (Cs) character, and the common
# format characters (Cf: soft hyphen, zero-width and bidirectional marks, BOM, tags).
NAME_PATTERN = ("^[^\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f"
                "\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ud800-\\uf8ff\\ufeff"
                "\\ufff9-\\ufffb]+$")
# where a game id is found in the answers that link to the game's routes
LINK_SOURCES = {("/games", "post", "201"): "$response.body#/game_id",
                ("/games", "get", "200"): "$response.body#/games/0/game_id"}


def contract(spec: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI document with the enforced rules added (in place; returned)."""
    schemas = spec.get("components", {}).get("schemas", {})
    for schema in schemas.values():
        _object_bounds(schema)
    if "CreateGame" in schemas:
        _per_game(schemas)
    if "Document" in schemas:  # the formats verification and import take
        schemas["Document"]["properties"]["format_version"]["enum"] = list(FORMAT_VERSIONS)
    _links(spec.get("paths", {}))
    _languages(spec)
    return spec


def _object_bounds(schema: Any) -> None:
    """An object's bounds count its properties: apispec writes a marshmallow Dict's Length as
    `minLength`/`maxLength`, string keywords an object ignores (issue 31, item 3)."""
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            for word in ("min", "max"):
                if f"{word}Length" in schema:
                    schema[f"{word}Properties"] = schema.pop(f"{word}Length")
        for value in schema.values():
            _object_bounds(value)
    elif isinstance(schema, list):
        for value in schema:
            _object_bounds(value)


def _languages(spec: dict[str, Any]) -> None:
    """Every operation takes ?lang= (api/i18n.py): the language of its messages and pages."""
    from api.i18n import LANGUAGES

    lang = {"in": "query", "name": "lang", "required": False,
            "schema": {"type": "string", "enum": list(LANGUAGES)},
            "description": "the language of error messages and pages (else Accept-Language, "
                           "else English); codes, rules, keys and event types never change"}
    # Inline in each operation, not a $ref: clients and tools that read an operation's
    # parameters by name (fuzzers, generated clients) then need no resolver.
    for operations in spec.get("paths", {}).values():
        for method in METHODS:
            if method in operations:
                operations[method].setdefault("parameters", []).append(dict(lang))


def _per_game(schemas: dict[str, Any]) -> None:
    create = schemas["CreateGame"]
    create["properties"]["seed"] = {
        "description": create["properties"].get("seed", {}).get("description", ""),
        "oneOf": [{"type": "integer", "minimum": -(1 << SEED_MAX_BITS) + 1,
                   "maximum": (1 << SEED_MAX_BITS) - 1},
                  {"type": "string", "minLength": 1, "maxLength": SEED_MAX_LENGTH}]}
    create["properties"]["players"]["items"]["pattern"] = NAME_PATTERN
    create["description"] = ("Each game has its own player count and options (one branch per "
                             "game); names are trimmed, NFC-normalised, 1-40 characters without "
                             "control or format characters, and distinct after casefold()")
    # One branch per game, each a whole body of its own under its own name (e.g.
    # CreateVampiringGame): a generator (openapi-python-client) builds each as a model a client
    # sends, where inline branches of bare properties gave it none (issue 31, item 3).
    branches = {branch_name(key): _game_branch(key, create) for key in GAMES}
    schemas.update(branches)
    create["oneOf"] = [{"$ref": f"#/components/schemas/{name}"} for name in branches]


def branch_name(key: str) -> str:
    """The component naming one game's creation body: "vampire-queen" -> "CreateVampireQueenGame"."""
    return "Create" + "".join(word.capitalize() for word in key.split("-")) + "Game"


def _game_branch(key: str, create: dict[str, Any]) -> dict[str, Any]:
    cls = game_class(key)
    options: dict[str, Any] = {}
    for name, option in cls.OPTIONS.items():
        if option.choices:
            described: dict[str, Any] = {"type": "string", "enum": list(option.choices)}
        else:
            described = {"type": "integer", "minimum": option.low, "maximum": option.high}
        if option.nullable:
            described["nullable"] = True
        options[name] = described
    branch = copy.deepcopy({k: v for k, v in create.items() if k != "oneOf"})
    branch["title"] = branch_name(key)
    branch["description"] = f"A game of {key}: its player count and options"
    players = branch["properties"]["players"]
    players.update(minItems=cls.MIN_PLAYERS, maxItems=cls.MAX_PLAYERS, uniqueItems=True)
    branch["properties"]["game"] = {"type": "string", "enum": [key]}
    branch["properties"]["options"] = {"type": "object", "properties": options,
                                       "additionalProperties": False}
    return branch


def _links(paths: dict[str, Any]) -> None:
    targets = {}
    for path, operations in sorted(paths.items()):
        if "{game_id}" not in path:
            continue
        for method in METHODS:
            if method in operations:
                name = _link_name(method, path)
                pointer = path.replace("~", "~0").replace("/", "~1")
                targets[name] = f"#/paths/{pointer}/{method}"
    for (path, method, status), source in LINK_SOURCES.items():
        response = paths.get(path, {}).get(method, {}).get("responses", {}).get(status)
        if response is None:
            continue
        response["links"] = {name: {"operationRef": ref, "parameters": {"game_id": source}}
                             for name, ref in targets.items()}


def _link_name(method: str, path: str) -> str:
    """e.g. ("post", "/games/{game_id}/commands") -> "PostGamesGameIdCommands"."""
    words = re.findall(r"[A-Za-z]+", path.replace("game_id", "GameId"))
    return method.capitalize() + "".join(w[:1].upper() + w[1:] for w in words)
