"""serve with TLS and basic auth under the abuse itself: hundreds of idle and slow-dripping
connections do not keep scrapers out, and a wrong-password flood costs a few percent of a core.

Before: 260 idle TCP connections took all 256 slots (28 of 30 authenticated scrapes failed), and
60 threads of wrong passwords used 1.85 of the host's 2 cores (bcrypt, ~80 ms each)."""

from __future__ import annotations

import base64
import http.client
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Callable, Iterator

import bcrypt
import psutil
import pytest

from mysqltop.serve import auth_gate, slots as slots_mod
from mysqltop.serve.endpoint import MAX_CONNECTIONS, Endpoint, serve_forever_in_thread
from mysqltop.serve.web_config import load_web_config
from tests.support.mariadb import free_port
from tests.support.tls import self_signed
from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def web_yml(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("tls")
    cert, key = self_signed(d)
    hashed = bcrypt.hashpw(b"s3cret", bcrypt.gensalt(10)).decode()      # the cost htpasswd -B uses
    (d / "web.yml").write_text(f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n"
                               f"basic_auth_users:\n  prometheus: '{hashed}'\n")
    return d / "web.yml"


def _ctx(web_yml: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(web_yml.parent / "c.pem"))


def _get(url: str, auth: str, ctx: ssl.SSLContext, timeout: float = 10, source: str | None = None) -> int:
    """GET with basic auth; `source`: the client address to connect from (127.0.0.2: another client)."""
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPSConnection(u.hostname or "", u.port, context=ctx, timeout=timeout,
                                       source_address=(source, 0) if source else None)
    try:
        conn.request("GET", u.path, headers={"Authorization": "Basic " + base64.b64encode(auth.encode()).decode()})
        r = conn.getresponse()
        r.read()
        return r.status
    except (OSError, http.client.HTTPException):
        return 0
    finally:
        conn.close()


@pytest.fixture()
def endpoint(web_yml: Path) -> Iterator[tuple[Endpoint, str]]:
    body = b"# TYPE mysqltop_up gauge\nmysqltop_up 1.0\n"
    ep = Endpoint(("127.0.0.1", 0), lambda om: body, lambda name: lambda om: body, load_web_config(str(web_yml)))
    serve_forever_in_thread(ep)
    try:
        yield ep, f"https://127.0.0.1:{ep.server_address[1]}/metrics"
    finally:
        ep.shutdown()
        ep.server_close()


def _closed_by_peer(s: socket.socket) -> bool:
    try:
        s.setblocking(False)
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_idle_and_slow_connections_do_not_keep_scrapers_out(endpoint: tuple[Endpoint, str], web_yml: Path) -> None:
    ep, url = endpoint
    ctx = _ctx(web_yml)
    idle: list[socket.socket] = []
    stop = threading.Event()

    def drip(s: socket.socket) -> None:        # slowloris: a header byte now and then, never the end
        for b in b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000:
            if stop.wait(0.5):
                return
            try:
                s.send(bytes([b]))
            except OSError:
                return

    drippers = []
    try:
        for _ in range(MAX_CONNECTIONS + 4):
            idle.append(socket.create_connection(ep.server_address[:2], timeout=10))
        for _ in range(20):
            s = socket.create_connection(ep.server_address[:2], timeout=10)
            idle.append(s)
            t = threading.Thread(target=drip, args=(s,), daemon=True)
            t.start()
            drippers.append(t)
        time.sleep(slots_mod.MIN_IDLE_S)             # the attack has held its sockets that long
        codes = [_get(url, "prometheus:s3cret", ctx) for _ in range(30)]
        assert codes == [200] * 30
        # none of them is held for long: cut at the per-client cap at once, all at the deadline
        wait_until(lambda: sum(_closed_by_peer(s) for s in idle) == len(idle), timeout=60)
        assert len(ep.slots) == 0
    finally:
        stop.set()
        for s in idle:
            s.close()
        for t in drippers:
            t.join(10)


def _ended(s: socket.socket) -> bool:
    """serve has closed it: perhaps after a 503 (refused at accept while every slot was young)."""
    try:
        s.setblocking(False)
        while s.recv(4096):
            pass
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_a_tls_handshake_that_never_ends_is_cut_at_the_deadline(endpoint: tuple[Endpoint, str]) -> None:
    ep, _ = endpoint
    with socket.create_connection(ep.server_address[:2], timeout=30) as s:
        t0 = time.monotonic()
        s.sendall(b"\x16\x03\x01\x00")                  # the start of a ClientHello, then nothing
        while True:
            try:
                if not s.recv(100):
                    break
            except OSError:
                break
        assert time.monotonic() - t0 < 15


def _serve(web_yml: Path, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "mysqltop", "serve", "-h", f"127.0.0.1:{free_port()}", "-u", "x",
                             "--listen", f"127.0.0.1:{port}", "--web.config.file", str(web_yml), "--connect-timeout", "1"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(web_yml.parent)})


def _flood(web_yml: Path, source: Callable[[int, int], str], seconds: float,
           pause: float) -> tuple[dict[int, int], list[int], float, float]:
    """20 threads sending a new wrong password each time, the k-th thread's n-th request from
    source(k, n), while a scraper whose password was verified once scrapes every `pause` s for
    `seconds`: (answer codes of the flood, 0 = held unanswered at accept; the scraper's codes;
    serve's CPU share of a core; the seconds it ran)."""
    port = free_port()
    url = f"https://127.0.0.1:{port}/metrics"
    ctx = _ctx(web_yml)
    serve = _serve(web_yml, port)
    codes: dict[int, int] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def flood(k: int) -> None:
        n = 0
        while not stop.is_set():
            n += 1
            code = _get(url, f"prometheus:wrong-{k}-{n}", ctx, source=source(k, n))   # new each: none remembered
            with lock:
                codes[code] = codes.get(code, 0) + 1

    try:
        wait_until(lambda: _get(url, "prometheus:s3cret", ctx) == 200, timeout=60)   # verified once, remembered
        proc = psutil.Process(serve.pid)
        threads = [threading.Thread(target=flood, args=(k,), daemon=True) for k in range(20)]
        before, t0 = proc.cpu_times(), time.monotonic()
        for t in threads:
            t.start()
        scrapes = []
        while time.monotonic() - t0 < seconds:
            scrapes.append(_get(url, "prometheus:s3cret", ctx))
            time.sleep(pause)
        stop.set()
        for t in threads:
            t.join(30)
        after, took = proc.cpu_times(), time.monotonic() - t0
    finally:
        stop.set()
        serve.terminate()
        serve.wait(60)
    return codes, scrapes, (after.user + after.system - before.user - before.system) / took, took


def test_a_wrong_password_flood_costs_little_cpu_and_scrapers_go_on(web_yml: Path) -> None:
    codes, scrapes, cpu, _ = _flood(web_yml, lambda k, n: "127.0.0.2", seconds=6, pause=0.0)
    assert scrapes.count(200) == len(scrapes) > 0                         # the scraper never waited on it
    # checked a few, refused the rest (429) or held its connections unanswered at accept (0)
    assert codes.get(0, 0) + codes.get(429, 0) > codes.get(401, 0) > 0, codes
    # the checks themselves are bounded at a few % of a core (+ a burst); TLS handshakes and HTTP
    # on a busy shared box add the rest: bound loosely here, bench/serve_abuse measures precisely
    assert cpu < 0.6, (cpu, codes)
    # bcrypt checks made: the burst (0.5 s of CPU) plus 2 % of the run for one client, ~40-80 ms each
    assert codes.get(401, 0) <= 20, codes


def _address(i: int) -> str:
    """The i-th attacking client (0-based): 127.0.1.1, 127.0.1.2 … — every 127.x.y.z is loopback."""
    return f"127.0.{1 + (i + 1) // 256}.{(i + 1) % 256}"


def test_slowloris_from_200_addresses_does_not_keep_the_scraper_out(web_yml: Path) -> None:
    port = free_port()
    url = f"https://127.0.0.1:{port}/metrics"
    ctx = _ctx(web_yml)
    serve = _serve(web_yml, port)
    idle: list[socket.socket] = []
    dripping: list[socket.socket] = []
    stop = threading.Event()

    def drip() -> None:                        # a header byte on each now and then, never the end
        for b in b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000:
            if stop.wait(0.5):
                return
            for s in dripping:
                try:
                    s.send(bytes([b]))
                except OSError:
                    pass

    dripper = threading.Thread(target=drip, daemon=True)
    try:
        wait_until(lambda: _get(url, "prometheus:s3cret", ctx) == 200, timeout=60)
        for i in range(200):                   # each address under the per-client cap
            a = (_address(i), 0)
            idle += [socket.create_connection(("127.0.0.1", port), timeout=10, source_address=a) for _ in range(2)]
            dripping += [socket.create_connection(("127.0.0.1", port), timeout=10, source_address=a)
                         for _ in range(2)]
        dripper.start()
        time.sleep(slots_mod.MIN_IDLE_S)       # the attack has held its sockets that long
        codes = [_get(url, "prometheus:s3cret", ctx) for _ in range(20)]
        assert codes == [200] * 20
        # every attacking socket is cut at its deadline (or was refused with a 503 at once)
        wait_until(lambda: all(_ended(s) for s in idle + dripping), timeout=60)
    finally:
        stop.set()
        for s in idle + dripping:
            s.close()
        if dripper.is_alive():
            dripper.join(10)
        serve.terminate()
        serve.wait(60)


def test_a_wrong_password_flood_from_100_addresses_costs_little_cpu(web_yml: Path) -> None:
    # 20 threads taking turns over 100 addresses
    codes, scrapes, cpu, took = _flood(web_yml, lambda k, n: _address((k + 20 * n) % 100), seconds=10, pause=0.2)
    assert scrapes.count(200) == len(scrapes) > 0, scrapes
    # strangers share two connections a second: most are held unanswered at accept (0)
    assert codes.get(0, 0) > codes.get(401, 0) + codes.get(429, 0), codes
    # checks: everyone's burst and share, at ≥ 40 ms each (bcrypt cost 10)
    bound = (auth_gate.TOTAL_BURST_S + auth_gate.TOTAL_SHARE * took) / 0.04 + 1
    assert 0 < codes.get(401, 0) <= bound, (codes, bound)
    # before: ~0.5 of a core (a TLS handshake and a 429 for every connection of every address);
    # bench/serve_abuse --sources 100 measures it precisely (≤ 5 %), a busy shared box adds noise
    assert cpu < 0.15, (cpu, codes)


class _Reconnecting:
    """`n` sockets that each connect again as soon as serve closes it, from one thread; with
    `tls_stall` each sends the start of a ClientHello and nothing more (a client that never
    completes TLS)."""

    STALL = b"\x16\x03\x01\x00"

    def __init__(self, address: tuple[str, int], n: int, tls_stall: bool) -> None:
        import selectors

        self.address, self.tls_stall = address, tls_stall
        self.opened = 0
        self.sel = selectors.DefaultSelector()
        self.stop = threading.Event()
        for _ in range(n):
            self._open()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _open(self) -> None:
        import selectors

        s = socket.create_connection(self.address, timeout=10)
        if self.tls_stall:
            s.sendall(self.STALL)
        s.setblocking(False)
        self.sel.register(s, selectors.EVENT_READ)
        self.opened += 1

    def _run(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.sel.select(0.2):
                s = key.fileobj
                assert isinstance(s, socket.socket)
                try:
                    if s.recv(4096):
                        continue
                except BlockingIOError:
                    continue
                except OSError:
                    pass
                self.sel.unregister(s)          # closed by serve: at once again
                s.close()
                try:
                    self._open()
                except OSError:
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self.sel.close()


@pytest.mark.parametrize("tls_stall", [False, True], ids=["idle", "tls-never-completed"])
def test_sockets_that_reconnect_when_cut_do_not_keep_scrapers_out(endpoint: tuple[Endpoint, str], web_yml: Path,
                                                                  tls_stall: bool) -> None:
    """260 sockets from the scraper's own address, each opened again the moment it is closed:
    they wait in the lobby (no slot, no thread) until their deadline, so the scraper, whose
    handshake completes at once, is answered; and serve does not spin accepting and closing."""
    ep, url = endpoint
    ctx = _ctx(web_yml)
    attack = _Reconnecting(ep.server_address[:2], MAX_CONNECTIONS + 4, tls_stall)
    try:
        time.sleep(slots_mod.MIN_IDLE_S)
        t0 = time.monotonic()
        codes = [_get(url, "prometheus:s3cret", ctx) for _ in range(30)]
        took = time.monotonic() - t0
        assert codes.count(200) >= 29, codes
        assert len(ep.slots) <= 2                                    # the attack holds no slot
        # each socket is closed once per deadline at most: no accept-and-close spin
        assert attack.opened <= (MAX_CONNECTIONS + 4) * (2 + (took + slots_mod.MIN_IDLE_S) / 5.0), attack.opened
    finally:
        attack.close()
