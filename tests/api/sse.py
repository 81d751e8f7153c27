"""Reading Server-Sent Events in tests: from the Flask test client or from a real socket."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Message:
    """One SSE message: its id (the version), its event name, its data (JSON decoded)."""

    id: int
    event: str
    data: dict[str, Any]


@dataclass
class Parsed:
    """What a stream sent so far: messages in order, and how many comment lines."""

    messages: list[Message] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    pings: int = 0  # `event: ping` messages
    presence: list[list[str]] = field(default_factory=list)  # `event: presence`: who is there
    rematch: str | None = None  # `event: rematch`: the game the table goes on to


PING = object()  # an `event: ping` message (no id, empty data)


@dataclass
class Rematch:
    """An `event: rematch` message (no id): the game the table goes on to."""

    game_id: str


@dataclass
class Presence:
    """An `event: presence` message (no id): the seats with the game open now."""

    present: list[str]


def parse_lines(lines: Iterable[str]) -> Iterator[Message | str | object]:
    """SSE lines -> messages (at each blank line) and comments (`: text`, yielded as text)."""
    fields: dict[str, list[str]] = {}
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line == "":
            if fields.get("event") == ["ping"]:
                yield PING  # the heartbeat a browser sees, beside the keepalive comment
            elif fields.get("event") == ["rematch"]:
                yield Rematch(json.loads("\n".join(fields["data"]))["game_id"])
            elif fields.get("event") == ["presence"]:
                yield Presence(json.loads("\n".join(fields["data"]))["present"])
            elif fields:
                yield Message(int(fields["id"][-1]), fields["event"][-1],
                              json.loads("\n".join(fields["data"])))
            fields = {}
        elif line.startswith(":"):
            yield line[1:].strip()
        else:
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value[1:] if value.startswith(" ") else value)


def chunk_lines(chunks: Iterable[bytes | str]) -> Iterator[str]:
    """Lines out of a response body's chunks (a chunk may hold several lines or end mid-line)."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk.decode("utf-8") if isinstance(chunk, bytes) else chunk
        while "\n" in buffer:
            line, buffer = buffer.split("\n", 1)
            yield line + "\n"


class Reader:
    """What both kinds of stream share: reading message by message from `_items`."""

    parsed: Parsed
    ended: bool
    _items: Iterator[Message | str]

    def next(self) -> Message | str | None:
        """The next message or comment; None once the stream has ended."""
        try:
            item = next(self._items)
            while item is PING or isinstance(item, Presence | Rematch):
                if item is PING:
                    self.parsed.pings += 1
                elif isinstance(item, Rematch):
                    self.parsed.rematch = item.game_id
                else:
                    self.parsed.presence.append(item.present)
                item = next(self._items)
        except StopIteration:
            self.ended = True
            return None
        if isinstance(item, Message):
            self.parsed.messages.append(item)
        else:
            self.parsed.comments.append(item)
        return item

    def until_version(self, version: int, limit: int = 10_000) -> list[Message]:
        """Read until a message of `version` (or later) arrived, or the stream ended."""
        for _ in range(limit):
            last = self.parsed.messages[-1].id if self.parsed.messages else -1
            if last >= version or self.ended:
                break
            self.next()
        return self.parsed.messages

    def until_end(self, limit: int = 100_000) -> list[Message]:
        """Read until the server ends the stream."""
        for _ in range(limit):
            if self.next() is None:
                break
        assert self.ended, "the stream did not end"
        return self.parsed.messages


class ClientStream(Reader):
    """A stream opened with the Flask test client, read message by message."""

    def __init__(self, client: Any, path: str, headers: dict[str, str] | None = None) -> None:
        self.response = client.get(path, headers=headers or {}, buffered=False)
        self.status = self.response.status_code
        self.parsed = Parsed()
        self._items = parse_lines(chunk_lines(self.response.response))
        self.ended = False

    def close(self) -> None:
        self.response.close()


class SocketStream(Reader):
    """A stream over a real connection to a served gruft (http.client undoes the chunking)."""

    def __init__(self, port: int, path: str, token: str | None = None, timeout: float = 30,
                 headers: dict[str, str] | None = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        self.conn.request("GET", path, headers=sent)
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.parsed = Parsed()
        self._items = parse_lines(iter(self._readline, ""))
        self.ended = False

    def _readline(self) -> str:
        return self.response.readline().decode("utf-8")

    def close(self) -> None:
        self.conn.close()


def events_of(messages: list[Message]) -> list[dict[str, Any]]:
    """Every event the messages carried, in order."""
    return [event for message in messages for event in message.data["events"]]
