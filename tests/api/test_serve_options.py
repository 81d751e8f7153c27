"""`gruft serve`'s serving model: gthread workers, their threads and workers from the command
line or GRUFT_THREADS / GRUFT_WORKERS, and an open-files limit raised for many streams."""

from __future__ import annotations

import http.client
import os
import re
import resource
import subprocess

import pytest

from api.addresses import is_loopback, machine_addresses
from bench.servers import listening_socket
from cli import main
from serving import serve_cli
from tests.kit import GRUFT, start_gruft, stop, wait_until


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
    monkeypatch.setattr(serve_cli.os, "environ", dict(serve_cli.os.environ))  # its changes stay here
    monkeypatch.setattr(serve_cli.os, "execv", lambda path, argv: seen.append(argv))
    return seen


def option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_default_serving_model(exec_argv, monkeypatch):
    monkeypatch.delenv("GRUFT_WORKERS", raising=False)
    monkeypatch.delenv("GRUFT_THREADS", raising=False)
    main(["serve", "--fd", "7"])
    (argv,) = exec_argv
    # gthread's worker, reading each request whole before a thread gets it (issue 32).
    assert option(argv, "--worker-class") == "serving.reading_worker.ReadingWorker"
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
    # Check it says where the data goes (issue 31, item 8)
    assert "GAMES_DB" in text and "GRUFT_DATA_DIR" in text


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
    main(["serve", "--host", "127.0.0.1", "--port", "0"])
    assert "--host 0.0.0.0" in capsys.readouterr().err
    # Check a bind every device reaches warns of nothing.
    main(["serve", "--host", "0.0.0.0", "--port", "0"])
    assert "warning" not in capsys.readouterr().err
    # Check a public address the server listens at warns of nothing (another port is a proxy's)
    sock = listening_socket()  # a port of this machine's, its loopback's
    port = sock.getsockname()[1]
    try:
        monkeypatch.setenv("GRUFT_PUBLIC_URL", "http://192.168.1.20")
        main(["serve", "--fd", str(sock.fileno())])
        assert "warning" not in capsys.readouterr().err
        # Check one at the server's own port but another address than it listens on warns
        # (issue 33, item 3: links no phone can open).
        monkeypatch.setenv("GRUFT_PUBLIC_URL", f"http://192.168.1.20:{port}")
        main(["serve", "--fd", str(sock.fileno())])
        err = capsys.readouterr().err
        assert f"GRUFT_PUBLIC_URL=http://192.168.1.20:{port} names an address this server does " \
               "not listen on" in err and "--host 0.0.0.0" in err
    finally:
        sock.close()
    assert [serve_cli.is_loopback(h) for h in ("localhost", "::1", "[::1]", "127.0.0.2", "0.0.0.0",
                                         "192.168.1.20", "gruft.example")] == [
        True, True, True, True, False, False, False]


def serve_env(tmp_path) -> dict[str, str]:
    """A store of this test's own, and nothing of the caller's serving settings."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("GRUFT_PUBLIC_URL", "GRUFT_HOST", "GRUFT_PORT", "PROMETHEUS_MULTIPROC_DIR",
                        "GRUFT_LISTENING")}
    return {**env, "GAMES_DB": str(tmp_path / "games.sqlite"),
            "GRUFT_DATA_DIR": str(tmp_path / "data")}


def test_a_port_in_use_is_one_line_and_no_server(tmp_path):
    # Issue 31, item 8: another server answers there; gruft must not say it serves there.
    taken = listening_socket()
    port = taken.getsockname()[1]
    try:
        done = subprocess.run([str(GRUFT), "serve", "--port", str(port), "--workers", "1"],
                              env=serve_env(tmp_path), cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)
    finally:
        taken.close()
    # Check one line that says what to do, a failure's exit, and no "serving on"
    assert done.returncode != 0
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"gruft serve: port {port} on 127.0.0.1 is already in use (another server, perhaps "
        "another gruft): stop it, or choose a free port: gruft serve --port N (or GRUFT_PORT)"]


def test_serving_on_every_address_names_the_machines_own(tmp_path):
    # Issue 31, item 8 / issue 33, item 3: not http://0.0.0.0:PORT, which no phone can open.
    log = tmp_path / "serve.log"
    proc = start_gruft(["serve", "--host", "0.0.0.0", "--port", "0", "--workers", "1",
                        "--threads", "4"], serve_env(tmp_path), log, cwd=tmp_path)
    try:
        wait_until(lambda: "gruft serving on" in log.read_text() or proc.poll() is not None,
                   "gruft serve to say where it serves")
        said = next(line for line in log.read_text().splitlines() if "gruft serving on" in line)
        assert "0.0.0.0" not in said
        urls = re.findall(r"http://([0-9.]+):(\d+)", said)
        if not machine_addresses():  # a machine with no network: it says only it can reach it
            assert "no network address" in said
            urls = [("127.0.0.1", said.split("port ")[1].split(" ")[0])]
        assert urls
        # Check each address it names is this machine's own: the list page answers there.
        for host, port in urls:
            assert not is_loopback(host) or not machine_addresses()

            def answers(host=host, port=port) -> bool:
                assert proc.poll() is None, log.read_text()
                conn = http.client.HTTPConnection(host, int(port), timeout=10)
                try:
                    conn.request("GET", "/")
                    return conn.getresponse().status == 200
                except OSError:
                    return False
                finally:
                    conn.close()

            wait_until(answers, f"gruft to answer at http://{host}:{port}/")
    finally:
        stop(proc)
