"""`gruft serve` hands gunicorn the socket it bound itself (a port in use is then one line and
no server: issue 31, item 8), or the socket it inherited (--fd)."""

from __future__ import annotations

import pytest

from cli import main
from serving import serve_cli


@pytest.fixture
def exec_argv(monkeypatch):
    """What `gruft serve` would exec, captured instead of run (and where the socket it hands
    gunicorn is bound, while it is still open); its environment changes stay in the test."""
    seen: list[list[str]] = []
    bound: list[tuple[str, int] | None] = []

    def execv(path, argv):
        seen.append(argv)
        bound.append(serve_cli.socket_address(int(bind_of(argv).removeprefix("fd://"))))

    monkeypatch.setattr(serve_cli.os, "environ", dict(serve_cli.os.environ))
    monkeypatch.setattr(serve_cli.os, "execv", execv)
    return seen, bound


def bind_of(argv: list[str]) -> str:
    return argv[argv.index("--bind") + 1]


def test_serve_binds_host_and_port(exec_argv, capsys):
    main(["serve", "--host", "127.0.0.1", "--port", "0", "--workers", "3"])
    (argv,), (bound,) = exec_argv
    # Check gunicorn gets the socket gruft serve bound itself, on the address asked for.
    assert bind_of(argv).startswith("fd://")
    host, port = bound
    assert host == "127.0.0.1" and port > 0
    assert argv[argv.index("--workers") + 1] == "3"
    # No gunicorn access log (it would print query strings) and no shared control socket.
    assert "--access-logfile" not in argv and "--no-control-socket" in argv
    assert argv[-1] == "serving.wsgi:create_app()"  # the API with its bot runner beside it
    assert f"http://127.0.0.1:{port}" in capsys.readouterr().out
    # Check the workers are told where it listens (the host page's warnings: api.addresses).
    assert serve_cli.os.environ["GRUFT_LISTENING"] == f"127.0.0.1 {port}"


def test_serve_on_an_inherited_socket(exec_argv, capsys):
    main(["serve", "--fd", "7"])
    (argv,), _ = exec_argv
    assert bind_of(argv) == "fd://7"
    assert "inherited socket 7" in capsys.readouterr().out
