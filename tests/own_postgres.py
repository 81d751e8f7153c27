"""A PostgreSQL server a test starts and stops itself (initdb and pg_ctl from Debian's
/usr/lib/postgresql/*/bin), in a temporary folder, on a port of its own, as a user that is not
root (PostgreSQL refuses to run as root)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

BINS = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))


class OwnPostgres:
    """One server: `start()`, `stop()`, and the settings gruft needs to use it."""

    def __init__(self, folder: Path) -> None:
        self.bin = Path(BINS[-1])
        self.folder = folder
        self.data = folder / "data"
        self.log = folder / "postgres.log"
        self.port = free_port()
        self._user = None if os.geteuid() else pwd.getpwnam("nobody")
        if self._user:
            shutil.chown(folder, self._user.pw_uid, self._user.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")

    def _run(self, tool: str, *args: str) -> None:
        user = self._user
        subprocess.run([str(self.bin / tool), *args], check=True, capture_output=True,
                       cwd=self.folder, user=user.pw_uid if user else None,
                       group=user.pw_gid if user else None, extra_groups=[] if user else None)

    def start(self) -> None:
        """Start the server and wait until it takes connections."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-o",
                  f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`fast`: connections cut, as an outage does)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def settings(self, data_dir: str) -> dict[str, Any]:
        """gruft's storage environment on this server's `postgres` database."""
        return {"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": "postgres",
                "POSTGRES_HOST": "127.0.0.1", "POSTGRES_PORT": str(self.port),
                "POSTGRES_USER": "postgres", "POSTGRES_PASSWORD": "", "GRUFT_DATA_DIR": data_dir}


def free_port() -> int:
    """A port nothing listens on now (PostgreSQL binds it itself)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
