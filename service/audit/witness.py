"""A witness of transparency logs (C2SP tlog-witness.md): `gruft witness vkey|serve`.

A witness follows logs, each named by its origin and trusted through its Ed25519 verifier key
(`--follow VKEY`: the vkey a gruft server lists in GET /signing-keys, whose key name is its log's
origin). For each log it keeps the latest checkpoint it cosigned (size and root) in `state.json`
in its state folder, beside its own key (`witness-key.pem`, made on first use) and its name
(`witness-name`). `POST /add-checkpoint` takes an old size, a consistency proof and a signed
checkpoint, and cosigns the checkpoint only if it extends what the witness holds:

- 400 a request it cannot read (or an old size beyond the checkpoint's size);
- 404 a checkpoint of an origin it does not follow;
- 403 a checkpoint no followed key's signature verifies;
- 409 with `Content-Type: text/x.tlog.size` and the size it holds, for an old size that is not
  the size it holds; 409 (plain) for another root at the size it holds: a split view;
- 422 a consistency proof that does not verify (this and a split view, signed by the log, are
  kept as evidence in `evidence/` in the state folder);
- 200 a timestamped `cosignature/v1` line (type 0x04, tlog-cosignature.md), after the new state
  is written (temporary file, fsync, rename, fsync of the folder): checking the old size and
  storing the new one happen under one lock (and a file lock, for two witnesses on one folder),
  so no two requests can roll the size back.

It is not part of the game server: it runs anywhere, for any log whose key it is given.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import fcntl
import hashlib
import json
import os
import re
import secrets
import sys
import threading
import time
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.audit.merkle import EMPTY_ROOT, verify_consistency
from service.audit.tlog import (
    COSIGNATURE_V1,
    ED25519,
    HASH_SIZE,
    MAX_NOTE,
    NoteError,
    Verifier,
    cosign,
    parse_checkpoint,
    parse_note,
    parse_vkey,
    raw_public,
    verified_by,
    vkey,
)

KEY_FILE, NAME_FILE, STATE_FILE, LOCK_FILE = ("witness-key.pem", "witness-name", "state.json",
                                              ".lock")
MAX_PROOF_LINES = 63  # tlog-witness.md
MAX_BODY = MAX_NOTE + 8 * 1024
OLD = re.compile(r"old (0|[1-9][0-9]{0,19})")
SIZE_TYPE = "text/x.tlog.size"


class Refused(Exception):
    """An add-checkpoint the witness refuses: the HTTP status, the body, its content type."""

    def __init__(self, status: int, text: str, content_type: str = "text/plain; charset=utf-8"):
        super().__init__(text)
        self.status, self.text, self.content_type = status, text, content_type


def load_or_create(folder: Path, name: str | None = None) -> tuple[str, Ed25519PrivateKey]:
    """The witness's name and key, kept in `folder` (made there, mode 0600, the first time)."""
    folder.mkdir(parents=True, exist_ok=True)
    key_path, name_path = folder / KEY_FILE, folder / NAME_FILE
    if not key_path.exists():
        pem = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption())
        _write_atomically(key_path, pem, mode=0o600, keep_existing=True)
    if not name_path.exists():
        chosen = name or f"gruft-witness/{secrets.token_hex(4)}"
        vkey(chosen, COSIGNATURE_V1, b"\0" * 32)  # NoteError for a name a key cannot have
        _write_atomically(name_path, chosen.encode("utf-8") + b"\n", keep_existing=True)
    private = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    if not isinstance(private, Ed25519PrivateKey):
        raise ValueError(f"{key_path} does not hold an Ed25519 key")
    return name_path.read_text("utf-8").strip(), private


def witness_vkey(folder: Path, name: str | None = None) -> str:
    """The witness's verifier key: `<name>+<key ID>+base64(0x04 ‖ public key)`."""
    chosen, private = load_or_create(folder, name)
    return vkey(chosen, COSIGNATURE_V1, raw_public(private))


def _write_atomically(path: Path, data: bytes, mode: int = 0o644,
                      keep_existing: bool = False) -> None:
    """Write a temporary file beside `path`, fsync it, rename (or link) it over `path`, fsync
    the folder: `path` holds either the old bytes or the new, whatever happens."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        if keep_existing:
            with suppress(FileExistsError):  # another process made it first: keep theirs
                os.link(tmp, path)
        else:
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


class Witness:
    """The witness of the logs it follows: checks submissions, keeps state, cosigns."""

    def __init__(self, folder: Path, follow: list[str], name: str | None = None,
                 clock=time.time) -> None:
        self.folder = folder
        self.name, self._private = load_or_create(folder, name)
        self.vkey = vkey(self.name, COSIGNATURE_V1, raw_public(self._private))
        self.logs: dict[str, list[Verifier]] = {}
        for text in follow:
            verifier = parse_vkey(text)
            if verifier.kind != ED25519:
                raise NoteError(f"{verifier.name}: a log's key is an Ed25519 key (type 0x01)")
            self.logs.setdefault(verifier.name, []).append(verifier)
        self._lock = threading.Lock()
        self._clock = clock

    # -- state ---------------------------------------------------------------------------------

    def state(self) -> dict[str, dict[str, Any]]:
        """Each followed origin's latest cosigned checkpoint: {origin: {"size", "root"}}."""
        path = self.folder / STATE_FILE
        if not path.exists():
            return {}
        return json.loads(path.read_text("utf-8")).get("logs", {})

    @contextmanager
    def _locked(self):
        with self._lock, (self.folder / LOCK_FILE).open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    # -- add-checkpoint ------------------------------------------------------------------------

    def add_checkpoint(self, body: bytes) -> str:
        """The cosignature line for a submission (tlog-witness.md); Refused otherwise."""
        old, proof, note = _parse_request(body)
        try:
            text, signatures = parse_note(note)
            checkpoint = parse_checkpoint(text)
        except NoteError as exc:
            raise Refused(400, f"not a signed checkpoint: {exc}\n") from None
        keys = self.logs.get(checkpoint.origin)
        if keys is None:
            raise Refused(404, f"this witness does not follow {checkpoint.origin[:120]}\n")
        good, bad = verified_by(text, signatures, keys)
        if not good or bad:
            raise Refused(403, "no signature by a key of the log verifies\n")
        if old > checkpoint.size:
            raise Refused(400, f"old size {old} is beyond the checkpoint's {checkpoint.size}\n")
        if old == 0 and proof:
            raise Refused(400, "a proof from old size 0 must be empty\n")
        with self._locked():
            logs = self.state()
            held = logs.get(checkpoint.origin)
            held_size = int(held["size"]) if held else 0
            held_root = base64.b64decode(held["root"]) if held else EMPTY_ROOT
            if old != held_size:
                raise Refused(409, f"{held_size}\n", SIZE_TYPE)
            if checkpoint.size == held_size and held is not None and checkpoint.root != held_root:
                self._keep_evidence(checkpoint.origin, body, "split-view")
                raise Refused(409, f"another root at size {held_size}, which this witness "
                                       "cosigned with a different root: a split view\n")
            if checkpoint.size != held_size or held is None:
                if old and not verify_consistency(old, checkpoint.size, held_root,
                                                  checkpoint.root, proof):
                    self._keep_evidence(checkpoint.origin, body, "inconsistent")
                    raise Refused(422, "the consistency proof does not verify\n")
                if old == 0 and checkpoint.size == 0 and checkpoint.root != EMPTY_ROOT:
                    raise Refused(422, "the empty tree has another root\n")
                logs[checkpoint.origin] = {
                    "size": checkpoint.size,
                    "root": base64.b64encode(checkpoint.root).decode("ascii")}
                _write_atomically(self.folder / STATE_FILE,
                                  json.dumps({"logs": logs}, indent=1, sort_keys=True).encode())
            return cosign(text, self.name, self._private, int(self._clock()))


    def _keep_evidence(self, origin: str, body: bytes, why: str) -> None:
        """Keep a refused request whose checkpoint the log signed (tlog-witness.md: it may prove
        the log's misbehaviour): `evidence/<time>-<why>-<origin hash>.txt` in the state folder."""
        folder = self.folder / "evidence"
        folder.mkdir(exist_ok=True)
        tag = hashlib.sha256(origin.encode("utf-8")).hexdigest()[:12]
        name = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(self._clock()))}-{why}-{tag}"
        _write_atomically(folder / f"{name}-{secrets.token_hex(3)}.txt", body)


def _parse_request(body: bytes) -> tuple[int, list[bytes], str]:
    """(old size, proof hashes, the checkpoint note) of an add-checkpoint body; 400 if bad."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(400, "the body is not UTF-8\n") from None
    head, sep, note = text.partition("\n\n")
    if not sep:
        raise Refused(400, "the body has no empty line before the checkpoint\n")
    lines = head.split("\n")
    match = OLD.fullmatch(lines[0])
    if match is None:
        raise Refused(400, "the first line is not `old <size>`\n")
    if len(lines) - 1 > MAX_PROOF_LINES:
        raise Refused(400, f"more than {MAX_PROOF_LINES} proof lines\n")
    proof = []
    for line in lines[1:]:
        try:
            digest = base64.b64decode(line, validate=True)
        except binascii.Error:
            digest = b""
        if len(digest) != HASH_SIZE:
            raise Refused(400, "a proof line is not a base64 SHA-256 hash\n")
        proof.append(digest)
    return int(match.group(1)), proof, note


# -- over HTTP -------------------------------------------------------------------------------


def make_server(witness: Witness, host: str, port: int) -> ThreadingHTTPServer:
    """An HTTP server answering POST /add-checkpoint for `witness` (keep-alive, HTTP/1.1)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "gruft-witness"

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            if self.path.split("?")[0].rstrip("/") != "/add-checkpoint":
                return self._answer(404, "not found: POST /add-checkpoint\n")
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                return self._answer(411, "Content-Length required\n", close=True)
            if not 0 <= length <= MAX_BODY:
                return self._answer(413, f"a body of at most {MAX_BODY} bytes\n", close=True)
            body = self.rfile.read(length)
            try:
                line = witness.add_checkpoint(body)
            except Refused as refused:
                return self._answer(refused.status, refused.text, refused.content_type)
            return self._answer(200, line)

        def do_GET(self) -> None:  # noqa: N802
            """The witness's name and verifier key (for its operator; not in the spec)."""
            return self._answer(200, json.dumps({"name": witness.name, "vkey": witness.vkey,
                                                 "follows": sorted(witness.logs)}) + "\n",
                                "application/json")

        def _answer(self, status: int, text: str,
                    content_type: str = "text/plain; charset=utf-8", close: bool = False) -> None:
            data = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            if close:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            sys.stderr.write(f"witness: {self.address_string()} {format % args}\n")

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


# -- the command -----------------------------------------------------------------------------


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft witness vkey` and `gruft witness serve`."""
    parser = sub.add_parser("witness", help="a C2SP witness of transparency logs (gruft's game "
                                            "log, or any log whose key it is given)")
    commands = parser.add_subparsers(dest="witness_command", required=True)
    show = commands.add_parser("vkey", help="print the witness's verifier key (made on first use)")
    serve = commands.add_parser("serve", help="serve POST /add-checkpoint (C2SP tlog-witness)")
    for each in (show, serve):
        each.add_argument("--state", required=True, metavar="DIR",
                          help="the folder that keeps the witness's key, name and state")
        each.add_argument("--name", help="the witness's name when its key is made (default "
                                         "gruft-witness/<random>)")
    show.set_defaults(func=run_vkey)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8100, help="port (0: any free one, printed)")
    serve.add_argument("--follow", action="append", required=True, metavar="VKEY",
                       help="a log's verifier key (GET /signing-keys: vkey); its name is the "
                            "log's origin. Repeat for more logs, or for a log's older keys")
    serve.set_defaults(func=run_serve)


def run_vkey(args: argparse.Namespace) -> int:
    print(witness_vkey(Path(args.state), args.name))
    return 0


def run_serve(args: argparse.Namespace) -> int:
    try:
        witness = Witness(Path(args.state), args.follow, args.name)
    except (NoteError, ValueError, OSError) as exc:
        print(f"gruft witness serve: {exc}", file=sys.stderr)
        return 2
    server = make_server(witness, args.host, args.port)
    host, port = server.server_address[:2]
    print(f"gruft witness {witness.vkey} listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
