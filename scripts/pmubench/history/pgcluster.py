"""A private PostgreSQL cluster for tests and benchmarks: initdb in a temp
directory (mkdtemp) as an unprivileged user (nobody, when run as root:
PostgreSQL refuses root), listening only on a unix socket there, trust
authentication for its one user; stop() stops it and removes the
directory.

    with Cluster() as url:   # postgresql://bench@/postgres?host=/tmp/...
        ...
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

PG_BIN = "/usr/lib/postgresql/15/bin"


def available() -> str | None:
    """None when a cluster can be started here, else why not."""
    if not os.path.exists(os.path.join(PG_BIN, "initdb")):
        return f"PostgreSQL 15 is not installed ({PG_BIN}/initdb missing): apt-get install postgresql"
    return None


def _as_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", *cmd]


class Cluster:
    def __init__(self) -> None:
        self.top = tempfile.mkdtemp(prefix="pmubench-pg-")
        self.data = os.path.join(self.top, "data")
        self.sock = os.path.join(self.top, "sock")

    def start(self) -> str:
        os.makedirs(self.sock)
        os.makedirs(self.data)
        if os.geteuid() == 0:
            os.chmod(self.top, 0o711)  # nobody passes through, reads nothing
            for path in (self.sock, self.data):
                shutil.chown(path, "nobody", "nogroup")
        run = dict(check=True, capture_output=True, text=True, cwd="/")
        subprocess.run(_as_user([f"{PG_BIN}/initdb", "-D", self.data, "-U", "bench",
                                 "-A", "trust", "--no-sync"]), **run)
        subprocess.run(_as_user([f"{PG_BIN}/pg_ctl", "-D", self.data, "-w", "-l",
                                 os.path.join(self.sock, "log"), "-o",
                                 f"-k {self.sock} -c listen_addresses='' -c fsync=off",
                                 "start"]), **run)
        return self.url("postgres")

    def url(self, database: str) -> str:
        return f"postgresql://bench@/{database}?host={self.sock}"

    def createdb(self, name: str) -> str:
        import sqlalchemy
        engine = sqlalchemy.create_engine(self.url("postgres"), isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        engine.dispose()
        return self.url(name)

    def cpu_seconds(self) -> float:
        """CPU seconds the server has used so far: the postmaster's own, its
        exited children's (backends, reaped: cutime, cstime) and its living
        children's (proc(5), /proc/PID/stat fields 14-17)."""
        with open(os.path.join(self.data, "postmaster.pid"), encoding="utf-8") as f:
            postmaster = int(f.readline())
        ticks = 0
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue  # exited meanwhile
            if int(pid) == postmaster:   # fields from the state on: 14 is [11]
                ticks += sum(int(v) for v in fields[11:15])
            elif int(fields[1]) == postmaster:
                ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        subprocess.run(_as_user([f"{PG_BIN}/pg_ctl", "-D", self.data, "-m", "immediate",
                                 "stop"]), capture_output=True, cwd="/", check=False)
        shutil.rmtree(self.top, ignore_errors=True)

    def __enter__(self) -> "Cluster":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
