"""Rebuilding from the log equals following it; every event is applied exactly once."""

from __future__ import annotations

import pytest
from eventsourcing.persistence import IntegrityError, Tracking

from cli import main
from service.readmodels import (
    EmbeddedRunner,
    GameViews,
    RunnerBusy,
    open_view,
    rebuild,
    views_env,
)
from tests.kit import wait_until


def test_rebuild_from_the_log_equals_the_views_kept_incrementally(populated, capsys):
    side = populated.app.extensions["gruft"].read_models()
    side.catch_up()
    incremental = side.view.dump()
    assert incremental["games"] and incremental["stats"] and incremental["metrics"]
    sqlite = populated.env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite"
    cli = ["projections", "rebuild", "--db", populated.env.get("SQLITE_DBNAME", "")]
    # Fail to rebuild while a runner (here the API worker's own) holds the lock: awaited, since
    # its thread takes the lock on its own time (catch_up may answer before it has, under load)
    wait_until(lambda: side.embedded.runner is not None, "the worker's runner taking the lock")
    if sqlite:
        assert main([*cli, "--lock-wait", "0.2"]) == 3
        assert "holds the lock" in capsys.readouterr().err
    else:
        with pytest.raises(RunnerBusy, match="a projection runner holds the lock: stop `gruft "
                                             "project`"):
            rebuild(populated.env, lock_wait=0.2)
    # Check `gruft projections rebuild` drops everything and projects the whole log again
    side.embedded.stop()
    try:
        if sqlite:
            assert main(cli) == 0
            assert "rebuilt:" in capsys.readouterr().out
        else:
            done = rebuild(populated.env)
            assert done.position == done.head == done.events
        assert side.view.dump() == incremental
    finally:
        side.embedded = EmbeddedRunner(populated.games, side.env)
    # Check the API answers the same from the rebuilt views
    client = populated.app.test_client()
    assert len(client.get("/games?limit=200").json["games"]) == len(populated.live)


def test_an_event_already_applied_is_refused_and_changes_nothing(populated):
    games = populated.games
    view = open_view(views_env(populated.env))
    try:
        before = view.dump()
        projection = GameViews(view, load=lambda gid, v: games.repository.get(gid, version=v))
        # Fail to apply a game's finishing event a second time: its stats would double
        finished = next(g for g in populated.live if g.finished)
        note = next(n for n in games.recorder.select_notifications(start=1, limit=10_000)
                    if n.originator_id == finished.id and n.originator_version == finished.version)
        event = games.mapper.to_domain_event(note)
        with pytest.raises(IntegrityError,
                           match=f"Failed to record tracking for {games.name} {note.id}$"):
            projection.process_event(event, Tracking(games.name, note.id))
        # Fail to apply its creation again either
        first = games.recorder.select_notifications(start=1, limit=1)[0]
        # (its game's row is there: SQLite's and PostgreSQL's words for it)
        with pytest.raises(IntegrityError, match=r"UNIQUE constraint failed: readmodel_games\.|"
                                                 r"duplicate key value violates unique"):
            projection.process_event(games.mapper.to_domain_event(first),
                                     Tracking(games.name, first.id))
        assert view.dump() == before
    finally:
        view.factory.close()
