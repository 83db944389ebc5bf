"""A PostgreSQL server of the tests' own: `initdb` and `pg_ctl` (Debian's `postgresql` package) on a temporary
folder, listening only on a Unix socket there, stopped and removed afterwards. As root the server runs as the
unprivileged `postgres` user (PostgreSQL refuses to run as root)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

PORT = 5439  # only names the socket file (.s.PGSQL.5439): no TCP port is opened


def pg_bin(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)),
                                       None)
    if found is None:
        raise RuntimeError(f"{name} not found: `make sysdeps` installs Debian's postgresql")
    return found


class TempPostgres:
    """`start()` a fresh cluster; `url(db)` to reach a database on it; `stop()` (also `kill()`: at once, as a
    crash) and `start()` again keep its data until `remove()`."""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="fieldglass-pg-"))
        self.data = self.root / "data"
        self.user = None
        if os.geteuid() == 0:
            self.user = pwd.getpwnam("postgres")
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)
        self._run([pg_bin("initdb"), "-D", str(self.data), "-U", "fieldglass", "--auth=trust", "-E", "UTF8",
                   "--no-locale", "--no-sync"])

    def _run(self, argv: list[str], check: bool = True) -> subprocess.CompletedProcess:
        if self.user is not None:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        return subprocess.run(argv, check=check, capture_output=True, text=True, cwd=self.root)

    def start(self) -> None:
        opts = f"-k {self.root} -c listen_addresses='' -p {PORT} -c fsync=off -c max_connections=120"
        self._run([pg_bin("pg_ctl"), "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"), "-w",
                   "start"])

    def stop(self, mode: str = "fast") -> None:
        self._run([pg_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"], check=False)

    def kill(self) -> None:
        """Stop it the hard way (immediate: no clean shut-down, the clients' connections cut)."""
        self.stop("immediate")

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://fieldglass@/{db}?host={self.root}&port={PORT}"

    def create_db(self, db: str) -> str:
        self._run([pg_bin("createdb"), "-h", str(self.root), "-p", str(PORT), "-U", "fieldglass", db])
        return self.url(db)

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
