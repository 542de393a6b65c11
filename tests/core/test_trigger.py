"""Trigger expressions: parsed without eval, checked against the Frame keys, errors with positions."""

from __future__ import annotations

import pytest

from mysqltop.core.frame import Flush, Frame, Host, Hotspot, Io, Throughput
from mysqltop.core.trigger import TriggerError, parse_trigger


def frame(**kw) -> dict:  # type: ignore[no-untyped-def]
    return Frame(time=0.0, **kw).to_dict()


BUSY = frame(throughput=Throughput(threads_running=40, tps=100.0),
             hotspots=[Hotspot("btr_search_latch", "rwlock", "performance_schema", share=0.8),
                       Hotspot("buf_pool_mutex", "mutex", "performance_schema", share=0.2)],
             io=Io(pending_reads=12), flush=Flush(checkpoint_age_pct=80.0),
             host=Host(cpus=2, run_queue=9))
CALM = frame(throughput=Throughput(threads_running=3), io=Io(pending_reads=0),
             flush=Flush(checkpoint_age_pct=10.0), host=Host(cpus=2, run_queue=1))


@pytest.mark.parametrize("expr, busy_value", [
    ("throughput.threads_running>32", 40),
    ("hotspots.0.share>0.5", 0.8),
    ("io.pending_reads>8", 12),
    ("flush.checkpoint_age_pct>75", 80),
    ("host.run_queue>2*host.cpus", 9),
    ("host.run_queue > 2 * host.cpus", 9),
    ("throughput.threads_running >= 40", 40),
    ("io.pending_reads>8 and host.run_queue>4", 12),
    ("io.pending_reads>100 or hotspots.0.share>0.5", 0.8),
    ("(host.run_queue - 1) / host.cpus >= 4", 4),
    ("-io.pending_reads < -8", -12),
])
def test_fires_on_busy_not_on_calm(expr: str, busy_value: float) -> None:
    t = parse_trigger(expr)
    busy = t.evaluate(BUSY)
    assert busy.fired and busy.value == pytest.approx(busy_value)
    assert not t.evaluate(CALM).fired


def test_missing_values_never_fire() -> None:
    empty = frame()                      # rates None, no host, no hotspots
    for expr in ("throughput.tps>0", "hotspots.0.share>=0", "host.run_queue>2*host.cpus",
                 "hotspots.5.share<1", "throughput.tps/host.cpus>1"):
        r = parse_trigger(expr).evaluate(empty)
        assert not r.fired and r.value is None, expr


def test_division_by_zero_is_missing() -> None:
    f = frame(host=Host(cpus=0, run_queue=3))
    assert not parse_trigger("host.run_queue/host.cpus>1").evaluate(f).fired


@pytest.mark.parametrize("expr, position, words", [
    ("throughput.tps>>3", 16, "expected a number"),
    ("throughput.tps 3", 16, "expected a comparison"),
    ("throughput.tps>", 16, "end of expression"),
    ("thruput.tps>3", 1, "unknown field 'thruput'"),
    ("throughput.tsp>3", 12, "unknown field 'tsp'"),
    ("hotspots.share>0.5", 10, "list index"),
    ("throughput>1", 1, "not a number"),
    ("server.version>1", 1, "text"),
    ("io.pending_reads > 8 $", 22, "unexpected '$'"),
    ("(host.run_queue>2", 16, "expected ')'"),
    ("__import__('os')>1", 12, "unexpected"),
    ("__import__>1", 1, "unknown field"),
    ("", 1, "expected a number"),
])
def test_errors_name_the_position(expr: str, position: int, words: str) -> None:
    with pytest.raises(TriggerError) as exc:
        parse_trigger(expr)
    assert exc.value.position == position, str(exc.value)
    assert words in str(exc.value)
    assert f"at position {position}" in str(exc.value)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECES = st.sampled_from(["throughput.tps", "host.cpus", "hotspots.0.share", "io.pending_reads", ">", ">=",
                           "<", "==", "!=", "*", "/", "+", "-", "(", ")", "and", "or", "2", "0.5", "1e3",
                           " ", "x", ".", "hotspots", "..", "&&", "||", "$", "'"])


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=40), st.lists(_PIECES, max_size=12).map("".join)))
def test_any_input_parses_or_fails_with_a_position(text: str) -> None:
    try:
        t = parse_trigger(text)
    except TriggerError as exc:
        assert 1 <= exc.position <= len(text) + 1
        return
    r = t.evaluate(BUSY)                    # whatever parsed evaluates without raising
    assert isinstance(r.fired, bool)
