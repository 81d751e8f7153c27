"""The OpenAPI document as outside tools read it (issue 31, item 3): `openapi-spec-validator`
accepts it, `openapi-python-client` generates every operation of it without a warning, and the
generated client alone creates and plays a whole VampiRing game on a served gruft.

The tools are the `test` extra's (pyproject.toml); the client is generated once, in the one
test that plays, from the document a real `gruft serve` process serves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from domain import GAMES, game_class
from service.release import release
from tests.kit import SHORT_OPTIONS, served_gruft

METHODS = ("get", "post", "put", "patch", "delete")
BIN = Path(sys.executable).parent
PACKAGE = "gruft_client"  # the generated package's name (the folder it is written to)


@pytest.fixture
def spec(client) -> dict[str, Any]:
    """The OpenAPI document the app serves."""
    return client.get("/openapi.json").get_json()


@contextmanager
def generated_client(spec: dict[str, Any], root: Path) -> Iterator[tuple[Any, str]]:
    """openapi-python-client's package for `spec`, written under `root` and imported, and what
    the generator said; the package is forgotten on the way out."""
    (root / "openapi.json").write_text(json.dumps(spec))
    (root / "config.json").write_text(json.dumps({"post_hooks": []}))  # no formatter run
    done = subprocess.run(
        [str(BIN / "openapi-python-client"), "generate", "--path", str(root / "openapi.json"),
         "--output-path", str(root / PACKAGE), "--meta", "none", "--config",
         str(root / "config.json")], capture_output=True, text=True, timeout=300,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"})
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    sys.path.insert(0, str(root))
    try:
        import gruft_client

        yield gruft_client, said
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def branch_name(key: str) -> str:
    """The name of a game's creation body: "vampire-queen" -> "CreateVampireQueenGame"."""
    return "Create" + "".join(word.capitalize() for word in key.split("-")) + "Game"


def operations(spec: dict[str, Any]) -> set[tuple[str, str]]:
    return {(method, path) for path, ops in spec["paths"].items() for method in ops
            if method in METHODS}


def test_the_document_is_valid_openapi(spec):
    # Check openapi-spec-validator accepts the served document (as OpenAPI 3.0).
    from openapi_spec_validator import validate

    validate(spec)  # raises on a document that is not valid OpenAPI


def test_the_document_names_the_release_and_bounds_objects_by_their_properties(spec):
    # Check info.version is the release gruft runs, and a creation's `options` and `bots` are
    # bounded by their count of properties (maxProperties), not by a string's length.
    assert spec["info"]["version"] == release() != "unknown"
    create = spec["components"]["schemas"]["CreateGame"]
    assert create["properties"]["options"]["maxProperties"] == 20
    assert create["properties"]["bots"]["maxProperties"] == 12

    def strings_bounds_on_objects(schema: Any) -> list[Any]:
        found = []
        if isinstance(schema, dict):
            if schema.get("type") == "object" and {"minLength", "maxLength"} & set(schema):
                found.append(schema)
            for value in schema.values():
                found += strings_bounds_on_objects(value)
        elif isinstance(schema, list):
            for value in schema:
                found += strings_bounds_on_objects(value)
        return found

    assert strings_bounds_on_objects(spec) == []
    # Check each game's creation body is a whole body under its own name, players' names in it.
    schemas = spec["components"]["schemas"]
    assert create["oneOf"] == [{"$ref": f"#/components/schemas/{branch_name(key)}"}
                               for key in GAMES]
    for key in GAMES:
        branch = schemas[branch_name(key)]
        assert branch["type"] == "object" and branch["additionalProperties"] is False
        assert set(branch["properties"]) == set(create["properties"])
        players = branch["properties"]["players"]
        assert players["items"] == create["properties"]["players"]["items"]
        assert (players["minItems"], players["maxItems"]) == (game_class(key).MIN_PLAYERS,
                                                              game_class(key).MAX_PLAYERS)


def test_a_generated_client_has_every_operation_and_plays_a_whole_vampiring_game(
        tmp_path, sqlite_env):
    # Check openapi-python-client generates each operation of the document a served gruft
    # serves, and warns of nothing (it skipped POST /games when the body's branches were bare
    # properties); then that the generated client alone creates a VampiRing game, plays every
    # seat's move from the legal moves the server offers until the game is over, and reads the
    # result. (One test: the server and the generated package are made once.)
    with served_gruft(sqlite_env, tmp_path / "serve.log") as port:
        base = f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(f"{base}/openapi.json", timeout=30) as answer:
            served = json.load(answer)
        with generated_client(served, tmp_path) as (client, said):
            assert "Warning" not in said and "will not be generated" not in said, said
            folder = Path(client.__file__).parent / "api"
            modules = {p.stem for p in folder.rglob("*.py") if p.name != "__init__.py"}
            assert len(modules) == len(operations(served)) >= 37  # every one, none skipped
            assert "post_games" in modules
            play_vampiring(base)


def play_vampiring(base: str) -> None:
    """A whole VampiRing game through the generated client alone."""
    from gruft_client import AuthenticatedClient, Client
    from gruft_client.api.games import (
        get_games_game_id,
        get_games_game_id_legal_moves,
        post_games,
        post_games_game_id_commands,
    )
    from gruft_client.models import (
        CommandBody,
        CommandResult,
        CreatedGame,
        CreateVampiringGame,
        LegalMoves,
        View,
    )

    players = ["Ann", "Ben", "Cy"]
    body = CreateVampiringGame.from_dict({"game": "vampiring", "players": players, "seed": 7,
                                          "options": SHORT_OPTIONS["vampiring"]})
    with Client(base_url=base, raise_on_unexpected_status=True) as anyone:
        created = post_games.sync(client=anyone, body=body)
        assert isinstance(created, CreatedGame), created
        game_id = created.game_id
        tokens = created.player_tokens.to_dict()
        assert set(tokens) == set(players)
        seats = {name: AuthenticatedClient(base_url=base, token=token,
                                           raise_on_unexpected_status=True)
                 for name, token in tokens.items()}
        moves = 0
        view = get_games_game_id.sync(game_id, client=anyone)
        while view.status.value == "in_progress":
            assert isinstance(view, View) and view.to_act, view
            for name in view.to_act:
                legal = get_games_game_id_legal_moves.sync(game_id, client=seats[name])
                assert isinstance(legal, LegalMoves) and legal.player == name, legal
                move = legal.moves[moves % len(legal.moves)].to_dict()
                result = post_games_game_id_commands.sync(
                    game_id, client=seats[name], body=CommandBody.from_dict(move))
                assert isinstance(result, CommandResult), result
                moves += 1
            view = get_games_game_id.sync(game_id, client=anyone)
        for seat in seats.values():
            seat.get_httpx_client().close()
    assert view.status.value == "finished" and view.winners, view
    assert set(view.scores.to_dict()) == set(players) and moves >= len(players)
