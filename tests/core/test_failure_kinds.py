"""A failed poll's kind is decided by exception type and error code, and reaches the frame."""

from __future__ import annotations


import pymysql
import pytest

from mysqltop.core.derive import derive
from mysqltop.core.frame import Frame
from mysqltop.core.parsed import ParsedSample
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.sample import Failure, RawSample
from mysqltop.errors import UserError
from mysqltop.sources.failure import classify


def _raised(exc: BaseException, during: BaseException | None = None) -> BaseException:
    """`exc` as PyMySQL raises it: inside the handler of `during` (so __context__ is set)."""
    try:
        try:
            if during is not None:
                raise during
            raise exc
        except BaseException:
            if during is None:
                raise
            raise exc  # noqa: B904 - the context is the point
    except BaseException as e:
        return e


def _wrapped(inner: BaseException) -> BaseException:
    """connect() replaces the PyMySQL error by a UserError `from None`: __context__ stays."""
    try:
        try:
            raise inner
        except BaseException:
            raise UserError("cannot connect: …") from None
    except BaseException as e:
        return e


@pytest.mark.parametrize("exc, kind", [
    (_raised(pymysql.err.OperationalError(2013, "Lost connection to MySQL server during query (timed out)"),
             during=TimeoutError("timed out")), Failure.TIMEOUT),
    (_raised(pymysql.err.OperationalError(2013, "Lost connection to MySQL server during query"),
             during=ConnectionResetError(104, "reset")), Failure.LOST),
    # the same words, another kind: words decide nothing
    (pymysql.err.OperationalError(2013, "timed out"), Failure.LOST),
    (pymysql.err.OperationalError(2006, "MySQL server has gone away"), Failure.LOST),
    (pymysql.err.OperationalError(1927, "Connection was killed"), Failure.LOST),
    (_raised(pymysql.err.OperationalError(2003, "Can't connect to MySQL server on 'db' ([Errno 111])"),
             during=ConnectionRefusedError(111, "refused")), Failure.UNREACHABLE),
    (_wrapped(pymysql.err.OperationalError(2003, "Can't connect")), Failure.UNREACHABLE),
    (_wrapped(pymysql.err.OperationalError(1045, "Access denied for user 'm'@'localhost'")), Failure.DENIED),
    (pymysql.err.OperationalError(4151, "Access denied, this account is locked"), Failure.DENIED),
    (pymysql.err.OperationalError(3118, "Access denied for user 'm'@'h'. Account is locked."), Failure.DENIED),
    (ValueError("odd result"), Failure.OTHER),
])
def test_classify_by_type_and_code(exc: BaseException, kind: Failure) -> None:
    assert classify(exc) is kind


def test_the_frame_carries_the_failure_and_says_why() -> None:
    raw = RawSample(wall=5.0, mono=5.0, error="poll failed: gone (reconnecting)", failure=Failure.LOST)
    f = derive(None, ParsedSample(raw))
    assert f.stale and f.failure == "lost" and f.why_stale() == "poll failed: gone (reconnecting)"
    assert f.to_dict()["failure"] == "lost"


def test_an_old_recording_without_a_kind_reads_as_other() -> None:
    f = PolledTimeline().push(RawSample(wall=5.0, mono=5.0, error="read timeout"))
    assert f.failure == "other" and f.why_stale() == "read timeout"


def test_why_stale_without_a_message_names_the_kind() -> None:
    assert Frame(time=0, stale=True, failure="timeout").why_stale() == "the server did not answer in time"
    assert Frame(time=0).why_stale() == ""
