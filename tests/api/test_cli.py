"""`gruft serve` hands gunicorn the address to bind, or the socket it inherited (--fd)."""

from __future__ import annotations

import pytest

from cli import main
from serving import serve_cli


@pytest.fixture
def exec_argv(monkeypatch):
    """What `gruft serve` would exec, captured instead of run."""
    seen: list[list[str]] = []
    monkeypatch.setattr(serve_cli.os, "execv", lambda path, argv: seen.append(argv))
    return seen


def bind_of(argv: list[str]) -> str:
    return argv[argv.index("--bind") + 1]


def test_serve_binds_host_and_port(exec_argv, capsys):
    main(["serve", "--host", "127.0.0.1", "--port", "8123", "--workers", "3"])
    (argv,) = exec_argv
    assert bind_of(argv) == "127.0.0.1:8123"
    assert argv[argv.index("--workers") + 1] == "3"
    # No gunicorn access log (it would print query strings) and no shared control socket.
    assert "--access-logfile" not in argv and "--no-control-socket" in argv
    assert argv[-1] == "serving.wsgi:create_app()"  # the API with its bot runner beside it
    assert "http://127.0.0.1:8123" in capsys.readouterr().out


def test_serve_on_an_inherited_socket(exec_argv, capsys):
    main(["serve", "--fd", "7"])
    (argv,) = exec_argv
    assert bind_of(argv) == "fd://7"
    assert "inherited socket 7" in capsys.readouterr().out
