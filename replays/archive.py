"""`gruft archive OUT` and `gruft restore IN`: every game as a replay document, one per line.

An archive is JSON Lines: each line one signed replay document, as `GET /games/{id}/export`
makes it for the host (so a game in play is archived with its secrets: keep archives as you keep
the store). Restoring verifies each document against the server's keys (the current one and the
retired ones) and stores it under the game id it had, skipping a game already in the store; the
seats get new tokens (a document carries none), written with `--tokens FILE` for games that go on,
and the server's bots go on playing the bot seats its creation records.
Both stream: one game in memory at a time. On a terminal, progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import IO, Any
from uuid import UUID

from eventsourcing.utils import get_topic

from domain import available_games, game_class
from domain.core import HOST
from domain.core.chain import DuplicateKey, strict_loads
from replays.document import build_document, describe, verify
from replays.logproof import check_retired
from service.audit.arbiter import origin_of
from service.audit.signing import check_signature
from service.errors import GameNotFound

PAGE = 500  # notifications read at a time while listing the games
STATUSES = ("in_progress", "finished", "aborted")


def created_topics() -> list[str]:
    """The topics of every game's creation event: one notification per game in the log."""
    return [get_topic(game_class(key).Created) for key in available_games()]


def game_ids(games: Any) -> Iterator[UUID]:
    """Every game in the store, in the order they were created."""
    topics, start = created_topics(), 1
    while True:
        page = games.recorder.select_notifications(start, PAGE, topics=topics)
        for notification in page:
            yield notification.originator_id
        if len(page) < PAGE:
            return
        start = page[-1].id + 1


def document_of(games: Any, key: Any, game_log: Any, game_id: UUID) -> dict[str, Any]:
    """The game's replay document, as the host's export makes it."""
    game, records = games.reads.replay_records(game_id, HOST, "the archive")
    logged = game_log.for_export(game.id) if game.finished else None
    return build_document(game, records, key.sign, key.public_pem,
                          games.arbiter.annotation_records(game), log=logged,
                          origin=games.arbiter.origin(game))


def archive(games: Any, key: Any, game_log: Any, out: IO[str], *,
            status: str | None = None, since: datetime | None = None,
            progress: Callable[[int, int], None] = lambda done, total: None) -> int:
    """Write the games (those of `status`, those with an event at or after `since`) to `out`,
    one document a line; how many were written."""
    ids = list(game_ids(games))
    written = 0
    for done, game_id in enumerate(ids, start=1):
        game = games.repository.game(game_id)
        if (status is None or game.status == status) and (
                since is None or game.modified_on >= since):
            document = document_of(games, key, game_log, game_id)
            out.write(json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n")
            written += 1
        progress(done, len(ids))
    out.flush()
    return written


class RestoreError(ValueError):
    """A line of an archive that cannot be restored: not a document, or not a valid one."""


def restore_one(games: Any, key: Any, line: str) -> tuple[str, Any]:
    """Restore one archived document: ("restored", NewGame), ("skipped", game id), or
    RestoreError with a sentence."""
    try:
        document = strict_loads(line)
    except (DuplicateKey, ValueError, RecursionError) as exc:
        raise RestoreError(f"not a JSON document: {exc}") from None
    try:
        game_id = UUID(str(document.get("game_id"))) if isinstance(document, dict) else None
    except ValueError:
        game_id = None
    if game_id is None:
        raise RestoreError("the document names no game id")
    try:
        games.repository.game(game_id)
        return "skipped", game_id
    except GameNotFound:
        pass
    # stored under the id it had where it was archived
    verdict = verify(document, trusted_keys=key.ring, check_signature=check_signature,
                     game_id=game_id)
    # Import's rule (issue 32, item 5): a key the server retired vouches only for a game logged
    # as over before it retired, which the document's own log proof must show (a fresh store
    # has no log of its own to ask).
    check_retired(document, verdict, key.history)
    if not verdict.valid:
        raise RestoreError(f"game {game_id} is not valid here: {describe(verdict.problems[0])}")
    # The server's bots go on playing the seats the game's creation gave them.
    # A copy restored stays a copy: its origin comes back with it. A game a retired key signed
    # keeps that key as its origin's signer: never presented as if the current key had.
    origin = document.get("origin") if isinstance(document.get("origin"), dict) else None
    if origin is None and verdict.key_id != key.key_id:
        origin = origin_of(document, verdict.key_id)
    return "restored", games.store_imported(verdict.game, document.get("annotations"),
                                            bots=dict(verdict.game.bots), origin=origin)


def restore(games: Any, key: Any, lines: Iterable[str], *, tokens: IO[str] | None = None,
            progress: Callable[[int, dict[str, int]], None] = lambda line, counts: None,
            ) -> tuple[dict[str, int], list[str]]:
    """Restore every document of an archive; the counts (restored, skipped, refused) and a
    sentence per line refused. A refused line stores nothing; the others go on."""
    counts, refused = {"restored": 0, "skipped": 0, "refused": 0}, []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            outcome, detail = restore_one(games, key, line)
        except RestoreError as exc:
            counts["refused"] += 1
            refused.append(f"line {number}: {exc}")
        else:
            counts[outcome] += 1
            if outcome == "restored" and tokens is not None:
                tokens.write(json.dumps({"game_id": str(detail.game_id),
                                         "host_token": detail.host_token,
                                         "player_tokens": detail.player_tokens}) + "\n")
        progress(number, counts)
    return counts, refused


# -- the command line ----------------------------------------------------------------------

def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft archive` and `gruft restore`."""
    from service.store_cli import add_db

    parser = sub.add_parser("archive", help="write every game as replay documents, one a line "
                                             "(JSON Lines)")
    parser.add_argument("out", metavar="OUT", help="the archive to write ('-': standard output)")
    parser.add_argument("--status", choices=STATUSES, default=None,
                        help="only the games of this status")
    parser.add_argument("--since", type=_moment, default=None, metavar="WHEN",
                        help="only the games with an event stored at or after WHEN (ISO 8601, "
                             "e.g. 2026-11-01 or 2026-11-01T12:00:00+00:00; UTC when no offset)")
    add_db(parser)
    parser.set_defaults(func=run_archive)
    parser = sub.add_parser("restore", help="import an archive's documents, verifying each; "
                                             "games already in the store are skipped")
    parser.add_argument("file", metavar="IN", help="the archive to read ('-': standard input)")
    parser.add_argument("--tokens", metavar="FILE", default=None,
                        help="write each restored game's new tokens here (JSON Lines)")
    add_db(parser)
    parser.set_defaults(func=run_restore)


def _moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 date or time: {text!r}") from None
    from datetime import UTC
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _opened(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """The store `--db` (or the settings) name, its signing key and its game log."""
    from service.app import Games
    from service.audit.gamelog import GameLog
    from service.audit.signing import SigningKey
    from service.settings import data_dir
    from service.store_cli import command_env

    games = Games(env=command_env(args))
    key = SigningKey.load_or_create(data_dir(games.storage))
    return games, key, GameLog(games, key)


def _progress_line(text: str) -> None:
    """One progress line on a terminal's stderr, rewritten in place; nothing elsewhere."""
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{text}\x1b[K")
        sys.stderr.flush()


def run_archive(args: argparse.Namespace) -> int:
    games, key, game_log = _opened(args)
    try:
        out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8")  # noqa: SIM115
        try:
            written = archive(games, key, game_log, out, status=args.status, since=args.since,
                              progress=lambda done, total: _progress_line(
                                  f"gruft archive: {done} of {total} games read"))
        finally:
            if out is not sys.stdout:
                out.close()
    finally:
        games.close()
    _progress_line("")
    print(f"gruft archive: {written} games written to {args.out}", file=sys.stderr)
    return 0


def run_restore(args: argparse.Namespace) -> int:
    games, key, _ = _opened(args)
    tokens = open(args.tokens, "w", encoding="utf-8") if args.tokens else None  # noqa: SIM115
    source = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    try:
        counts, refused = restore(games, key, source, tokens=tokens, progress=lambda n, c: (
            _progress_line(f"gruft restore: line {n}: {c['restored']} restored, "
                           f"{c['skipped']} skipped, {c['refused']} refused")))
    finally:
        games.close()
        if source is not sys.stdin:
            source.close()
        if tokens is not None:
            tokens.close()
    _progress_line("")
    for sentence in refused:
        print(f"gruft restore: {sentence}", file=sys.stderr)
    print(f"gruft restore: {counts['restored']} restored, {counts['skipped']} already there, "
          f"{counts['refused']} refused", file=sys.stderr)
    return 1 if refused else 0
