"""Running a web app on loopback from Python: in a thread of this process (the page tests) or as a `fieldglass`
subprocess (the load benchmark, whose memory is measured apart from its spectators')."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import uvicorn

from common.errors import InputError
from fieldglass.web.live import GameFeed, check_viewer, live_app, parse_address, serve_url


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on now (the OS's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def app_in_thread(app, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve `app` with uvicorn in a thread at `host`:`port` (0: a free port); yields its URL once it listens;
    stops it afterwards (open streams are closed after one second). InputError when the address is taken."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=1,
                                           lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the web server stopped while starting")
        time.sleep(0.01)
    try:
        yield serve_url(host, port)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@contextlib.contextmanager
def spectators(record: str | Path, address: str | None, viewer: str | None = None) -> Iterator[str | None]:
    """While the block runs, show `record` live at `address` (HOST:PORT; None: not at all) as `fieldglass serve`
    does, from a thread of this process: the recorder's `--serve` hook. Yields the URL (None)."""
    if not address:
        yield None
        return
    host, port = parse_address(address)
    check_viewer(record, viewer)
    with app_in_thread(live_app(GameFeed(record, viewer)), host, port) as url:
        print(f"spectators: {url} ({viewer or 'public'} view)", file=sys.stderr, flush=True)
        yield url


@contextlib.contextmanager
def serve_subprocess(record: Path, viewer: str | None = None, host: str = "127.0.0.1") -> Iterator[tuple[str, int]]:
    """`fieldglass serve RECORD` in a child process; yields (URL, pid) once it answers; ends it afterwards."""
    port = free_port(host)
    argv = [sys.executable, "-m", "fieldglass", "serve", str(record), "--address", f"{host}:{port}"]
    if viewer:
        argv += ["--as", viewer]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ))
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"fieldglass serve ended: {proc.stderr.read().decode(errors='replace')}")
            with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.2):
                break
            time.sleep(0.05)
        yield serve_url(host, port), proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stderr.close()
