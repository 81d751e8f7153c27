"""The API's subcommand, `gruft serve`: the REST API under gunicorn."""

from __future__ import annotations

import argparse
import os
import shutil
import sys


def serve(args: argparse.Namespace) -> int:
    """Run the API under gunicorn; each worker builds its own Application after the fork.

    gunicorn's own access log is off: it would print query strings (a viewer page may carry a
    token there); gruft logs one structured line per request itself (api.request_log). Its
    control socket is off too: every gunicorn on a machine would share ~/.gunicorn/gunicorn.ctl.
    With --fd it serves a socket its parent already bound and listens on (a supervisor, the
    benchmark, the tests): no other process can take the port between choosing and binding it.
    """
    gunicorn = shutil.which("gunicorn") or os.path.join(os.path.dirname(sys.executable), "gunicorn")
    if args.fd is not None:
        bind, where = f"fd://{args.fd}", f"inherited socket {args.fd}"
    else:
        bind, where = f"{args.host}:{args.port}", f"http://{args.host}:{args.port}"
    argv = [gunicorn, "--bind", bind, "--workers", str(args.workers),
            "--error-logfile", "-", "--no-control-socket", "cli.wsgi:create_app()"]
    print(f"gruft serving on {where} with {args.workers} worker(s)", flush=True)
    os.execv(argv[0], argv)
    return 0  # not reached


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft serve`."""
    p = sub.add_parser("serve", help="run the REST API (SQLite in ./data by default)")
    p.add_argument("--host", default=os.environ.get("GRUFT_HOST", "127.0.0.1"))
    p.add_argument("--port", type=int, default=int(os.environ.get("GRUFT_PORT", "8000")))
    p.add_argument("--workers", type=int, default=int(os.environ.get("GRUFT_WORKERS", "1")))
    p.add_argument("--fd", type=int, default=None, metavar="N",
                   help="serve the listening socket inherited as file descriptor N "
                        "(--host and --port are then unused)")
    p.set_defaults(func=serve)
