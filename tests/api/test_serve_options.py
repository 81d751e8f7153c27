"""`gruft serve`'s serving model: gthread workers, their threads and workers from the command
line or GRUFT_THREADS / GRUFT_WORKERS, and an open-files limit raised for many streams."""

from __future__ import annotations

import os
import resource

import pytest

from cli import main
from serving import serve_cli


@pytest.fixture(autouse=True)
def environment_kept():
    """`gruft serve` sets variables for the gunicorn it becomes (GRUFT_STREAMS_MAX,
    PROMETHEUS_MULTIPROC_DIR and its owner mark): run here, it must leave this test process's
    environment as it was, or every server and runner the process starts later inherits them
    (they shared one metrics folder, which the first of them to stop removed)."""
    def environment() -> dict[str, str]:
        return {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}

    before = environment()
    yield
    assert environment() == before


@pytest.fixture
def exec_argv(monkeypatch):
    """What `gruft serve` would exec, captured instead of run; what it sets in its
    environment set in a copy."""
    seen: list[list[str]] = []
    monkeypatch.setattr(serve_cli.os, "execv", lambda path, argv: seen.append(argv))
    monkeypatch.setattr(serve_cli.os, "environ", dict(serve_cli.os.environ))
    return seen


def option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_default_serving_model(exec_argv, monkeypatch):
    monkeypatch.delenv("GRUFT_WORKERS", raising=False)
    monkeypatch.delenv("GRUFT_THREADS", raising=False)
    main(["serve", "--fd", "7"])
    (argv,) = exec_argv
    assert option(argv, "--worker-class") == "gthread"
    assert option(argv, "--workers") == str(serve_cli.DEFAULT_WORKERS)
    assert option(argv, "--threads") == str(serve_cli.DEFAULT_THREADS)
    # A worker takes no more connections than it can serve (plus a few idle kept-alive ones).
    assert int(option(argv, "--worker-connections")) == serve_cli.DEFAULT_THREADS + serve_cli.KEEPALIVE_SPARE
    assert serve_cli.DEFAULT_WORKERS * serve_cli.DEFAULT_THREADS >= 1000  # issue 15: 1,000 open streams


def test_streams_leave_threads_for_other_requests(exec_argv, monkeypatch):
    # gruft serve sets the cap in its environment, which the workers inherit: a copy here.
    monkeypatch.setattr(serve_cli.os, "environ", {k: v for k, v in serve_cli.os.environ.items()
                                            if k != "GRUFT_STREAMS_MAX"})
    main(["serve", "--fd", "7", "--threads", "200"])
    # The workers inherit the cap: a tenth of the threads stays free for commands.
    assert serve_cli.os.environ["GRUFT_STREAMS_MAX"] == "180"
    assert serve_cli.streams_max(1000) == 900 and serve_cli.streams_max(8) == 4 and serve_cli.streams_max(2) == 1


def test_threads_and_workers_from_the_environment_and_the_command_line(exec_argv, monkeypatch):
    monkeypatch.setenv("GRUFT_WORKERS", "3")
    monkeypatch.setenv("GRUFT_THREADS", "40")
    main(["serve", "--fd", "7"])
    main(["serve", "--fd", "7", "--threads", "8", "--workers", "1"])
    env_argv, cli_argv = exec_argv
    assert (option(env_argv, "--workers"), option(env_argv, "--threads")) == ("3", "40")
    assert (option(cli_argv, "--workers"), option(cli_argv, "--threads")) == ("1", "8")


def test_the_help_names_the_settings(capsys):
    with pytest.raises(SystemExit, match="^0$"):  # --help exits 0
        main(["serve", "--help"])
    text = capsys.readouterr().out
    assert "GRUFT_WORKERS" in text and "GRUFT_THREADS" in text and "gthread" in text


def test_the_open_files_limit_is_raised_to_the_hard_limit(monkeypatch):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    lowered = min(256, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (lowered, hard))
    try:
        assert serve_cli.raise_open_files_limit() == (hard if hard != resource.RLIM_INFINITY
                                                else max(lowered, 65536))
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= lowered
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_loopback_bind_warns_that_other_devices_cannot_reach_it(exec_argv, monkeypatch,
                                                                  capsys):
    monkeypatch.delenv("GRUFT_PUBLIC_URL", raising=False)
    main(["serve", "--host", "127.0.0.1", "--port", "8000"])
    assert "--host 0.0.0.0" in capsys.readouterr().err
    # Check a bind every device reaches, or a public address set, warns of nothing.
    main(["serve", "--host", "0.0.0.0", "--port", "8000"])
    assert "warning" not in capsys.readouterr().err
    monkeypatch.setenv("GRUFT_PUBLIC_URL", "http://192.168.1.20:8000")
    main(["serve", "--host", "127.0.0.1", "--port", "8000"])
    assert "warning" not in capsys.readouterr().err
    assert [serve_cli.is_loopback(h) for h in ("localhost", "::1", "[::1]", "127.0.0.2", "0.0.0.0",
                                         "192.168.1.20", "gruft.example")] == [
        True, True, True, True, False, False, False]
