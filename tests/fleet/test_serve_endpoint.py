"""serve's HTTP endpoint as a hostile network sees it: routes and refusals, a silent client cut off,
hundreds of concurrent scrapes all answered with one render per cache period, TLS and basic auth
from an exporter-toolkit web config, and config files that are not what they claim."""

from __future__ import annotations

import base64
import socket
import ssl
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import bcrypt
import pytest

from mysqltop.errors import UserError
from mysqltop.serve import endpoint as http_endpoint
from mysqltop.serve.endpoint import Endpoint, ProbeError, serve_forever_in_thread
from mysqltop.serve.web_config import WebConfig, load_web_config
from tests.support.tls import self_signed


class Fake:
    def __init__(self) -> None:
        self.renders = 0
        self.lock = threading.Lock()

    def collect(self, openmetrics: bool, server: str = "all") -> bytes:
        with self.lock:
            self.renders += 1
        text = (f'# TYPE mysqltop_up gauge\nmysqltop_up{{server="{server}"}} 1.0\n'
                f'# TYPE mysqltop_transactions_total counter\nmysqltop_transactions_total{{server="{server}"}} 42.0\n')
        return (text + ("# EOF\n" if openmetrics else "")).encode()

    def target(self, name: str) -> Any:
        if name == "nope:1":
            raise ProbeError(404, "nope:1 is not watched")
        return lambda openmetrics: self.collect(openmetrics, name)


def _start(web: WebConfig | None = None) -> tuple[Endpoint, Fake, str]:
    fake = Fake()
    ep = Endpoint(("127.0.0.1", 0), fake.collect, fake.target, web)
    serve_forever_in_thread(ep)
    return ep, fake, f"127.0.0.1:{ep.server_address[1]}"


def _get(url: str, **kw: Any) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10, **kw) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_routes_and_refusals() -> None:
    ep, fake, where = _start()
    try:
        status, body = _get(f"http://{where}/metrics")
        assert status == 200 and b'mysqltop_transactions_total{server="all"} 42.0' in body
        status, body = _get(f"http://{where}/probe?target=db1:3306")
        assert status == 200 and b'server="db1:3306"' in body
        assert _get(f"http://{where}/probe")[0] == 400
        assert _get(f"http://{where}/probe?target=a&target=b")[0] == 400
        assert _get(f"http://{where}/probe?target=nope:1") == (404, b"nope:1 is not watched\n")
        assert _get(f"http://{where}/nothing")[0] == 404
        req = urllib.request.Request(f"http://{where}/metrics", data=b"x", method="POST")
        assert _get(req)[0] == 405  # type: ignore[arg-type]
        om = urllib.request.Request(f"http://{where}/metrics",
                                    headers={"Accept": "application/openmetrics-text; version=1.0.0"})
        status, body = _get(om)  # type: ignore[arg-type]
        assert status == 200 and body.endswith(b"# EOF\n")
        with socket.create_connection(ep.server_address[:2], timeout=10) as s:   # not HTTP at all
            s.sendall(b"\x16\x03\x01 garbage \xff\r\n\r\n")
            reply = b""
            while chunk := s.recv(4096):
                reply += chunk
            assert b"400" in reply                                     # an error page, then closed
        assert ep.request_queue_size >= 1024
    finally:
        ep.shutdown()
        ep.server_close()


def test_a_silent_client_is_cut_off_at_the_header_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_endpoint, "HEADER_TIMEOUT_S", 1.0)
    ep, _, where = _start()
    try:
        with socket.create_connection(ep.server_address[:2], timeout=30) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")         # and never the blank line
            t0 = time.monotonic()
            while s.recv(100):
                pass
            assert time.monotonic() - t0 < 20                             # closed, not held for IO_TIMEOUT
        assert _get(f"http://{where}/metrics")[0] == 200                  # and the endpoint still answers
    finally:
        ep.shutdown()
        ep.server_close()


def test_hundreds_of_concurrent_scrapes_are_all_answered_from_few_renders() -> None:
    ep, fake, where = _start()
    clients, rounds = 200, 5
    codes: list[int] = []
    lock = threading.Lock()
    go = threading.Barrier(clients)

    def scrape() -> None:
        go.wait()
        for _ in range(rounds):
            code = _get(f"http://{where}/metrics")[0]
            with lock:
                codes.append(code)

    t0 = time.monotonic()
    threads = [threading.Thread(target=scrape) for _ in range(clients)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        took = time.monotonic() - t0
    finally:
        ep.shutdown()
        ep.server_close()
    assert codes.count(200) == clients * rounds, {c: codes.count(c) for c in set(codes)}
    # one render per cache period (plus one per period boundary), not one per scrape
    assert fake.renders <= took / http_endpoint.CACHE_S + 3, (fake.renders, took)


# ---- TLS and basic auth ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cert(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed(tmp_path_factory.mktemp("tls"))


def test_tls_and_basic_auth_from_a_web_config(tmp_path: Path, cert: tuple[Path, Path]) -> None:
    hashed = bcrypt.hashpw(b"s3cret", bcrypt.gensalt(4)).decode().replace("$2b$", "$2y$")  # as htpasswd writes
    cfg = tmp_path / "web.yml"
    cfg.write_text(f"tls_server_config:\n  cert_file: {cert[0]}\n  key_file: {cert[1].name}\n"
                   f"basic_auth_users:\n  prometheus: '{hashed}'\n"
                   "http_server_config:\n  headers:\n    X-Frame-Options: deny\n")
    (tmp_path / cert[1].name).write_bytes(cert[1].read_bytes())          # relative to the config file
    web = load_web_config(str(cfg))
    ep, _, where = _start(web)
    ctx = ssl.create_default_context(cafile=str(cert[0]))

    def get(auth: str | None) -> tuple[int, bytes]:
        headers = {"Authorization": "Basic " + base64.b64encode(auth.encode()).decode()} if auth else {}
        return _get(urllib.request.Request(f"https://{where}/metrics", headers=headers), context=ctx)  # type: ignore[arg-type]

    try:
        assert get(None)[0] == 401
        assert get("prometheus:wrong")[0] == 401
        assert get("nobody:s3cret")[0] == 401
        status, body = get("prometheus:s3cret")
        assert status == 200 and b"mysqltop_up" in body
        assert get("prometheus:s3cret")[0] == 200                        # remembered: no second bcrypt
        with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
            urllib.request.urlopen(f"http://{where}/metrics", timeout=10).read()   # plain HTTP to TLS: closed
    finally:
        ep.shutdown()
        ep.server_close()


@pytest.mark.parametrize("text, says", [
    ("basic_auth_users:\n  u: plaintext\n", "not a bcrypt hash"),
    ("tls_server_config:\n  cert_file: /nonexistent.pem\n  key_file: /nonexistent.key\n", "no such file"),
    ("tls_server_config:\n  cert_file: a\n", "needs both cert_file and key_file"),
    ("tls_server_config:\n  cipher_suites: [x]\n  cert_file: a\n  key_file: b\n", "cipher_suites is not supported"),
    ("unknown_key: 1\n", "unknown_key is not supported"),
    ("basic_auth_users: [a, b]\n", "expected a mapping"),
    (": : :\n\t- [\n", "not valid YAML"),
    ("\x00\x01binary", "not valid YAML"),
])
def test_a_web_config_that_is_not_what_it_claims_is_one_line(tmp_path: Path, text: str, says: str) -> None:
    cfg = tmp_path / "web.yml"
    cfg.write_text(text)
    with pytest.raises(UserError) as e:
        load_web_config(str(cfg))
    assert says in e.value.message and "\n" not in e.value.message


def test_clients_that_go_away_or_a_failing_render_leave_no_traceback(capfd: pytest.CaptureFixture[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A scraper that resets mid-answer, and a render that fails, cost that request only: no
    traceback on serve's stderr (an operator's log), at most one line, and the next scrape answers."""
    big = b"# TYPE mysqltop_up gauge\n" + b"mysqltop_up 1.0\n" * 400_000
    calls = {"n": 0}

    def render(openmetrics: bool) -> bytes:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("render failed\x1b[2J")
        return big

    ep = Endpoint(("127.0.0.1", 0), render, lambda name: render)
    monkeypatch.setattr(http_endpoint, "CACHE_S", 0.0)
    serve_forever_in_thread(ep)
    try:
        assert _get(f"http://127.0.0.1:{ep.server_address[1]}/metrics")[0] == 500
        for _ in range(20):
            with socket.create_connection(ep.server_address[:2], timeout=10) as s:
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                s.recv(10)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        status, body = _get(f"http://127.0.0.1:{ep.server_address[1]}/metrics")
        assert status == 200 and len(body) == len(big)
    finally:
        ep.shutdown()
        ep.server_close()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "\x1b" not in err
    assert len([line for line in err.splitlines() if line.strip()]) <= 1, err
