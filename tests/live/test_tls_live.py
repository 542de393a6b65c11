"""--ssl-mode against a real MariaDB serving TLS with a certificate for 127.0.0.1: the VERIFY
modes connect with the CA that signed it and refuse another, REQUIRED connects verifying
nothing, and the password account authenticates over it."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from mysqltop.errors import UserError
from mysqltop.sources.capabilities import connect
from tests.support.mariadb import ThrowawayMariaDB
from tests.support.tls import self_signed


@pytest.fixture(scope="module")
def tls_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ThrowawayMariaDB, Path, Path]]:
    d = tmp_path_factory.mktemp("tls-db")
    cert, key = self_signed(d)
    other, _ = self_signed(tmp_path_factory.mktemp("other-ca"))
    with ThrowawayMariaDB(extra_args=[f"--ssl-cert={cert}", f"--ssl-key={key}"], name="tls") as db:
        yield db, cert, other


@pytest.mark.parametrize("mode", ["REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY"])
def test_each_mode_connects_to_the_real_server(tls_db: tuple[ThrowawayMariaDB, Path, Path], mode: str) -> None:
    from dataclasses import replace

    db, cert, _ = tls_db
    conn = connect(replace(db.options(), ssl_ca=str(cert) if mode != "REQUIRED" else None, ssl_mode=mode), 5.0, 5.0)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW SESSION STATUS LIKE 'Ssl_version'")
            version = cur.fetchall()[0][1]
        assert str(version).startswith("TLS")
    finally:
        conn.close()


def test_a_certificate_another_ca_signed_is_refused(tls_db: tuple[ThrowawayMariaDB, Path, Path]) -> None:
    from dataclasses import replace

    db, _, other = tls_db
    with pytest.raises(UserError, match="certificate verify failed"):
        connect(replace(db.options(), ssl_ca=str(other), ssl_mode="VERIFY_CA"), 5.0, 5.0)
