"""The OpenAPI document states what the server enforces (issue 16, item 11): each game's player
counts and options, the seed's forms, the replay formats taken, and links from the routes that
create or list games to every route taking a game_id."""

from __future__ import annotations

import pytest

from domain import GAMES, game_class
from replays.document import FORMAT_VERSIONS


@pytest.fixture
def spec(client) -> dict:
    return client.get("/openapi.json").get_json()


def test_each_game_states_its_player_counts_and_options(spec):
    create = spec["components"]["schemas"]["CreateGame"]
    named = [spec["components"]["schemas"][b["$ref"].rpartition("/")[2]] for b in create["oneOf"]]
    branches = {b["properties"]["game"]["enum"][0]: b for b in named}
    assert set(branches) == set(GAMES)
    for key, branch in branches.items():
        cls = game_class(key)
        players = branch["properties"]["players"]
        assert (players["minItems"], players["maxItems"]) == (cls.MIN_PLAYERS, cls.MAX_PLAYERS)
        options = branch["properties"]["options"]
        assert set(options["properties"]) == set(cls.OPTIONS)
        assert options["additionalProperties"] is False
        for name, option in cls.OPTIONS.items():
            described = options["properties"][name]
            if option.choices:
                assert described["enum"] == list(option.choices)
            else:
                assert (described["minimum"], described["maximum"]) == (option.low, option.high)
    seed = create["properties"]["seed"]["oneOf"]
    assert {s["type"] for s in seed} == {"integer", "string"}


def test_the_document_formats_are_stated(spec):
    described = spec["components"]["schemas"]["Document"]["properties"]["format_version"]
    assert described["enum"] == list(FORMAT_VERSIONS) == [1, 2, 3]


def test_created_and_listed_games_link_to_every_game_route(spec):
    paths = spec["paths"]
    game_routes = {(path, method) for path, ops in paths.items() if "{game_id}" in path
                   for method in ops if method in ("get", "post", "put", "patch", "delete")}
    assert len(game_routes) >= 8
    for path, method, status, source in (("/games", "post", "201", "$response.body#/game_id"),
                                         ("/games", "get", "200",
                                          "$response.body#/games/0/game_id")):
        links = paths[path][method]["responses"][status]["links"]
        reached = set()
        for link in links.values():
            assert link["parameters"] == {"game_id": source}
            pointer, _, target_method = link["operationRef"].removeprefix("#/paths/").rpartition("/")
            target = pointer.replace("~1", "/").replace("~0", "~")
            assert target_method in paths[target], link  # the reference resolves
            reached.add((target, target_method))
        assert reached == game_routes


def test_a_stateful_fuzzer_follows_the_links_into_a_game(app):
    # schemathesis' state machine, from the document alone: a listed game's own routes answer.
    import schemathesis
    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import run_state_machine_as_test

    created = app.test_client().post("/games", json={"game": "vampir", "players": ["A", "B", "C"]})
    assert created.status_code == 201
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    schema.config.generation.update(modes=[schemathesis.GenerationMode.POSITIVE])
    machine = schema.as_state_machine()
    answered: list[tuple[str, int]] = []

    class Recording(machine):
        def after_call(self, response, case):
            answered.append((case.operation.path, response.status_code))

        def validate_response(self, response, case, **kwargs):
            pass  # the other fuzz tests check answers; this one checks the links are followed

    run_state_machine_as_test(Recording, settings=settings(
        max_examples=8, stateful_step_count=6, deadline=None, database=None,
        suppress_health_check=list(HealthCheck)))
    reached = {path for path, status in answered if "{game_id}" in path and status < 400}
    assert reached, sorted(set(answered))
