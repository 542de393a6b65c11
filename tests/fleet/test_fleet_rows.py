"""Overview rows from poller states: state words by Frame.failure, sorting, hostile names."""

from __future__ import annotations

from mysqltop.core.frame import Advice, Flush, Frame, Hotspot, ServerInfo, Throughput
from mysqltop.fleet import ServerState
from mysqltop.views.fleet_rows import CONNECTING, DENIED, LATE, LIVE, NOT_ANSWERING, fleet_row, fleet_rows

NOW = 100.0


def frame(wait_ms: float = 1.0, advice: tuple[str, ...] = (), name: str = "buf_pool_mutex", **kw) -> Frame:
    return Frame(time=1e9, server=ServerInfo(version="10.11.6-MariaDB-1", flavor="mariadb"),
                 throughput=Throughput(tps=120.0, qps=1500.0, threads_running=3),
                 flush=Flush(history_list_length=4200, checkpoint_age_pct=37.5),
                 hotspots=[Hotspot(name=name, kind="mutex", source="performance_schema", waits_per_s=50,
                                   wait_ms_per_s=wait_ms)],
                 advice=[Advice(a, sev, "m", "e") for a, sev in (x.split(":") for x in advice)], **kw)


def state(name: str, f: Frame | None, arrived: float | None = NOW - 0.1, good: Frame | None = None,
          **kw) -> ServerState:
    kw.setdefault("good_at", arrived)
    return ServerState(name=name, frame=f, good=good if good is not None else (f if f and not f.stale else None),
                       arrived=arrived, started=0.0, **kw)


def test_live_row_shows_the_numbers() -> None:
    r = fleet_row(state("db1:3306", frame(advice=("ahi:warning", "purge:critical"))), NOW, 1.0)
    assert r.state == LIVE and r.state_text == "live"
    assert (r.version, r.tps, r.qps, r.threads_running) == ("mariadb 10.11.6", "120", "1.5k", "3")
    assert (r.latch, r.wait_ms, r.history, r.checkpoint) == ("buf_pool_mutex", "1", "4.2k", "38%")
    assert (r.finding, r.severity) == ("purge", "critical")


def test_states_switch_on_the_typed_failure_and_on_silence() -> None:
    late = fleet_row(state("a", frame(), arrived=NOW - 4.0), NOW, 1.0)
    assert late.state == LATE and late.state_text == "late 4.0s"
    dead = Frame(time=1e9, stale=True, failure="unreachable", errors={"poll": "Can't connect to server"})
    r = fleet_row(state("b", dead, good=frame(), good_at=NOW - 30.0), NOW, 1.0)
    assert r.state == NOT_ANSWERING and r.state_text.startswith("NOT ANSWERING")
    assert r.finding == "for 30s: unreachable: Can't connect to server"
    assert r.tps == "120"                          # the last good numbers, shown dimmed by the view
    denied = Frame(time=1e9, stale=True, failure="denied", errors={"poll": "Access denied for user"})
    assert fleet_row(state("c", denied), NOW, 1.0).state == DENIED
    timeout = Frame(time=1e9, stale=True, failure="timeout", errors={"poll": "timed out"})
    assert fleet_row(state("d", timeout), NOW, 1.0).state == NOT_ANSWERING
    assert fleet_row(ServerState(name="e", started=NOW - 1.0), NOW, 1.0).state == CONNECTING
    never = ServerState(name="f", started=NOW - 1.0, open_error="Can't connect to MySQL server on 'f'")
    r = fleet_row(never, NOW, 1.0)
    assert r.state == NOT_ANSWERING and "Can't connect" in r.finding


def test_an_outage_is_timed_from_the_last_fresh_data_not_the_last_attempt() -> None:
    refused = Frame(time=1e9, stale=True, failure="unreachable", errors={"poll": "Connection refused"})
    never = ServerState(name="a", frame=refused, arrived=NOW - 0.003, started=NOW - 30.0)
    assert fleet_row(never, NOW, 1.0).outage == "for 30s: unreachable: Connection refused"
    was = ServerState(name="b", frame=refused, good=frame(), arrived=NOW - 0.003, good_at=NOW - 95.0, started=0.0)
    assert fleet_row(was, NOW, 1.0).outage.startswith("for 1m35s: unreachable")
    assert fleet_row(state("c", frame()), NOW, 1.0).outage == ""


def test_sorted_worst_first_then_by_wait_time() -> None:
    states = [state("calm", frame(wait_ms=0.5)),
              state("hot", frame(wait_ms=900.0)),
              state("warned", frame(wait_ms=0.1, advice=("x:warning",))),
              state("down", Frame(time=1e9, stale=True, failure="lost", errors={"poll": "gone away"})),
              state("critical", frame(wait_ms=2.0, advice=("y:critical",)))]
    assert [r.name for r in fleet_rows(states, NOW, 1.0)] == ["down", "critical", "warned", "hot", "calm"]


def test_jitter_in_wait_time_does_not_reorder_rows() -> None:
    a, b = state("a", frame(wait_ms=10.0)), state("b", frame(wait_ms=11.0))
    assert [r.name for r in fleet_rows([a, b], NOW, 1.0)] == ["a", "b"]     # same step: named order
    b = state("b", frame(wait_ms=40.0))
    assert [r.name for r in fleet_rows([a, b], NOW, 1.0)] == ["b", "a"]


def test_hostile_names_are_made_visible() -> None:
    f = frame(name="evil\x1b]0;pwned\x07latch", advice=("a\x1b[2Jb:warning",))
    r = fleet_row(state("db\x1b[31m1", f), NOW, 1.0)
    assert "\x1b" not in "".join(r.cells) and "\x07" not in "".join(r.cells)
    assert r.latch == "evil\\x1b]0;pwned\\x07latch" and r.name == "db\\x1b[31m1"
