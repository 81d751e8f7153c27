"""The server's log witnessed: each new checkpoint submitted to the witnesses it names.

`GRUFT_WITNESSES` names witnesses (`URL=VKEY`, their C2SP verifier keys of type 0x04) and
`GRUFT_WITNESSES_NEEDED` how many cosignatures make a checkpoint witnessed. `Witnessing` owns one
daemon thread per worker, beside the game log's appender and like it off every request's path:
it looks at the log's size every `POLL` seconds (or when nudged) and, when the log has grown past
what a witness cosigned, sends that witness the new checkpoint (a signed note) with the
consistency proof from the size it holds (C2SP tlog-witness.md, `POST <URL>/add-checkpoint`).
A witness that answers 409 with `text/x.tlog.size` holds another size than the one sent: the
next submission starts from that size (a worker just started learns it so). Each cosignature is
checked against the witness's key before it is kept (in memory: a restarted worker asks again,
and a witness cosigns the size it holds again).

A witness that is down, slow or refuses blocks nothing: the thread marks it behind, tries again
later (a little later after each failure), and `GET /log/tlog/checkpoint` serves the newest
checkpoint cosigned by enough of them; /readyz and /metrics say how far behind each is.
"""

from __future__ import annotations

import base64
import logging
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from service.audit.tlog import NoteError, Verifier, parse_signature_lines, parse_vkey, verified_by

log = logging.getLogger("gruft.witnessing")

POLL = 1.0  # seconds between two looks at the log's size
TIMEOUT = 10.0  # seconds a witness has to answer
KEPT = 16  # cosigned sizes kept per witness (the newest)
MAX_ANSWER = 64 * 1024


@dataclass
class Witness:
    """One witness: where it is, its key, and what it cosigned."""

    url: str
    verifier: Verifier
    held: int | None = None  # the size it holds, as far as we know (None: not asked yet)
    cosigned: dict[int, str] = field(default_factory=dict)  # size -> its cosignature line
    error: str | None = None  # why the last submission failed
    failures: int = 0
    next_try: float = 0.0  # time.monotonic() before which it is not asked again

    @property
    def size(self) -> int:
        """The largest size it cosigned for us (0: none)."""
        return max(self.cosigned, default=0)


def parse_witnesses(pairs: tuple[tuple[str, str], ...]) -> list[Witness]:
    """The witnesses of GRUFT_WITNESSES (already split into (URL, VKEY))."""
    return [Witness(url.rstrip("/"), parse_vkey(key)) for url, key in pairs]


class Witnessing:
    """The witnesses of one worker's game log; `start` its thread, `close` it."""

    def __init__(self, game_log: Any, witnesses: list[Witness], needed: int) -> None:
        self.game_log = game_log
        self.witnesses = witnesses
        self.needed = min(needed, len(witnesses))
        self._lock = threading.Lock()  # guards the witnesses' fields
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.log_size = 0  # the log's size at the last look

    @property
    def enabled(self) -> bool:
        return bool(self.witnesses) and self.needed > 0

    def start(self) -> Witnessing:
        """Start the thread (none without witnesses)."""
        if self.witnesses and self._thread is None:
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="gruft-witnessing")
            self._thread.start()
        return self

    def close(self, timeout: float = TIMEOUT + 1) -> None:
        """Stop the thread and wait for a submission under way."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def nudge(self) -> None:
        """Look at the log now (not at the next poll)."""
        self._wake.set()

    # -- what the server serves ------------------------------------------------------------

    def cosigned(self) -> tuple[int, str] | None:
        """(size, note) of the newest checkpoint cosigned by `needed` witnesses: the server's
        signed note with their cosignature lines; None if there is none yet."""
        with self._lock:
            sizes = sorted({s for w in self.witnesses for s in w.cosigned}, reverse=True)
            for size in sizes:
                lines = [w.cosigned[size] for w in self.witnesses if size in w.cosigned]
                if len(lines) >= self.needed:
                    return size, self.game_log.note(size) + "".join(lines)
        return None

    def for_export(self, game_id: Any) -> dict[str, Any] | None:
        """A logged game's inclusion proof against the newest checkpoint cosigned by enough
        witnesses: {"index", "proof", "checkpoint": the cosigned note}; None without witnesses
        or when no such checkpoint holds the game yet."""
        cosigned = self.cosigned() if self.enabled else None
        if cosigned is None:
            return None
        size, note = cosigned
        proof = self.game_log.inclusion(game_id, size)
        if proof is None:
            return None
        return {"index": proof["index"], "proof": proof["proof"], "checkpoint": note}

    def status(self) -> list[dict[str, Any]]:
        """Each witness: its name, URL, the size it cosigned, how many leaves it is behind the
        log, and its last error."""
        size = self.game_log.tree().size
        with self._lock:
            return [{"name": w.verifier.name, "url": w.url, "cosigned": w.size,
                     "behind": max(0, size - w.size), "error": w.error}
                    for w in self.witnesses]

    # -- the thread -------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.round()
            except Exception:  # a store outage: the next round tries again
                log.exception("witnessing: a round failed")
            self._wake.wait(POLL)
            self._wake.clear()

    def round(self) -> None:
        """Submit the log's current checkpoint to each witness that has not cosigned it."""
        size = self.log_size = self.game_log.tree().size
        if size == 0:
            return
        for witness in self.witnesses:
            if self._stop.is_set():
                return
            if size in witness.cosigned or time.monotonic() < witness.next_try:
                continue
            self.submit(witness, size)

    def submit(self, witness: Witness, size: int) -> bool:
        """Ask one witness to cosign the checkpoint of `size`; whether it did."""
        note = self.game_log.note(size)
        for _attempt in range(2):  # a 409 with the size it holds: once more from that size
            old = witness.held or 0
            if old > size:
                return self._failed(witness, f"it holds size {old}, beyond the log's {size}")
            proof = [base64.b64encode(bytes.fromhex(h)).decode("ascii")
                     for h in self.game_log.consistency(old, size)["proof"]] if old else []
            body = (f"old {old}\n" + "".join(p + "\n" for p in proof) + "\n" + note)
            status, kind, answer = self._post(witness.url + "/add-checkpoint",
                                              body.encode("utf-8"))
            if status == 409 and kind.startswith("text/x.tlog.size"):
                try:
                    held = int(answer.decode("ascii").strip())
                except ValueError:
                    return self._failed(witness, "409 with a size that is not a number")
                with self._lock:
                    witness.held = held
                continue
            if status != 200:
                return self._failed(witness, f"answered {status}: {_said(answer)}")
            return self._keep(witness, size, note, answer)
        return self._failed(witness, "its size kept changing")

    def _keep(self, witness: Witness, size: int, note: str, answer: bytes) -> bool:
        text = note[:note.rfind("\n\n") + 1]
        try:
            lines = parse_signature_lines(answer.decode("utf-8"))
        except (NoteError, UnicodeDecodeError) as exc:
            return self._failed(witness, f"its answer is not cosignature lines: {exc}")
        mine = [s for s in lines if s.name == witness.verifier.name
                and s.id == witness.verifier.id]
        good, _bad = verified_by(text, mine, [witness.verifier])
        if not good:
            return self._failed(witness, "no cosignature by its key verifies")
        line = next(s.line for s in mine if witness.verifier.verify(text.encode("utf-8"),
                                                                     s.value))
        with self._lock:
            witness.held, witness.error, witness.failures, witness.next_try = size, None, 0, 0.0
            witness.cosigned[size] = line
            for old in sorted(witness.cosigned)[:-KEPT]:
                del witness.cosigned[old]
        return True

    def _failed(self, witness: Witness, why: str) -> bool:
        with self._lock:
            witness.error = why
            witness.failures += 1
            witness.next_try = time.monotonic() + min(60.0, 0.5 * 2 ** witness.failures)
        log.warning("witness %s (%s): %s", witness.verifier.name, witness.url, why)
        return False

    @staticmethod
    def _post(url: str, body: bytes) -> tuple[int, str, bytes]:
        request = urllib.request.Request(url, body, method="POST",
                                         headers={"Content-Type": "text/plain; charset=utf-8"})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:  # noqa: S310
                return answer.status, answer.headers.get("Content-Type", ""), answer.read(
                    MAX_ANSWER)
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers.get("Content-Type", "") or "", exc.read(MAX_ANSWER)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            return 0, "", str(exc).encode("utf-8", "replace")


def _said(answer: bytes) -> str:
    return answer.decode("utf-8", "replace").strip()[:200] or "nothing"
