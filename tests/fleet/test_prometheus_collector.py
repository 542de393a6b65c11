"""The serve collector: registry names and types, counters with the server's values, stable bounded
latch series, findings that keep their series across severities, escaping, gaps for stale frames."""

from __future__ import annotations

from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om
from prometheus_client.parser import text_string_to_metric_families as parse_text

from mysqltop.core import metrics
from mysqltop.core.frame import Advice, Counters, Flush, Frame, Hotspot, LatchCounter, ServerInfo, Throughput
from mysqltop.fleet import ServerState
from mysqltop.views.prometheus import Exposition

NOW = 1000.0


def _frame(**kw) -> Frame:
    spots = [Hotspot(name=f"latch_{i}", kind="mutex", source="performance_schema",
                     waits_per_s=10.0 * i, wait_ms_per_s=float(i)) for i in range(1, 8)]
    spots.append(Hotspot(name="latch_7", kind="mutex", source="performance_schema", waits_per_s=1.0,
                         wait_ms_per_s=1.0, site="other.cc:2"))      # same latch, second site: summed
    spots.append(Hotspot(name='evil"\\\n\x1b[2J', kind="mutex", source="innodb_mutex", waits_per_s=3.0))
    latches = [LatchCounter(f"latch_{i}", "performance_schema", 1000 * i, 10.0 * i) for i in range(1, 8)]
    latches.append(LatchCounter('evil"\\\n\x1b[2J', "innodb_mutex", 30, None))
    base = dict(time=NOW, server=ServerInfo(version="10.11.6-MariaDB\x1b]0;pwn\x07", flavor="mariadb"),
                throughput=Throughput(tps=123.5, qps=900.0, threads_running=4),
                flush=Flush(checkpoint_age_pct=42.0, checkpoint_age_bytes=1e6),
                counters=Counters(transactions=5000, commits=4900, rollbacks=100, deadlocks=7),
                hotspots=spots, latch_counters=latches, advice=[Advice("ahi_contention", "warning", "m", "e")])
    base.update(kw)
    return Frame(**base)


class _Reg:
    """The exposition as the tests read it: text format or OpenMetrics."""

    def __init__(self, states: list[ServerState], cap: int = 3) -> None:
        self.states = states
        self.exposition = Exposition(lambda: self.states, 1.0, max_latches=cap, clock=lambda: NOW)


def _registry(states: list[ServerState], cap: int = 3) -> _Reg:
    return _Reg(states, cap)


def generate_latest(reg: _Reg) -> bytes:
    return reg.exposition.render(None, openmetrics=False)


def generate_openmetrics(reg: _Reg) -> bytes:
    return reg.exposition.render(None, openmetrics=True)


def _samples(text: str, om: bool = False) -> dict[str, list]:
    out: dict[str, list] = {}
    for fam in (parse_om if om else parse_text)(text):
        for s in fam.samples:
            out.setdefault(s.name, []).append(s)
    return out


def test_registry_names_counters_with_server_values_and_capped_latches() -> None:
    f = _frame()
    st = ServerState(name="db1:3306", frame=f, good=f, arrived=NOW - 0.2, started=0.0, polls=7, stale=2,
                     late=1, poll_s=0.05, queries=420)
    text = generate_latest(_registry([st])).decode()
    s = _samples(text)
    one = {k: v[0].value for k, v in s.items() if len(v) == 1}
    assert one["mysqltop_transactions_total"] == 5000 and one["mysqltop_deadlocks_total"] == 7
    assert one["mysqltop_queries_total"] == 420
    assert one["mysqltop_threads_running"] == 4
    assert one["mysqltop_checkpoint_age_ratio"] == 0.42
    assert one["mysqltop_polls_total"] == 7 and one["mysqltop_stale_polls_total"] == 2
    assert one["mysqltop_late_polls_total"] == 1 and one["mysqltop_up"] == 1
    assert one["mysqltop_poll_duration_seconds"] == 0.05
    assert "# TYPE mysqltop_transactions_total counter" in text
    assert "# TYPE mysqltop_checkpoint_age_ratio gauge" in text
    assert "_per_second" not in text                      # no rate exported as a gauge
    for line in text.splitlines():                        # every family is in the registry
        if line.startswith("# TYPE"):
            assert line.split()[2].removesuffix("_total") in {m.full for m in metrics.ALL}, line
    # the first 3 latches seen keep their own series; the rest are one `other` counter per source
    wait = {x.labels["latch"]: x.value for x in s["mysqltop_latch_wait_seconds_total"]}
    assert wait == {"latch_1": 0.01, "latch_2": 0.02, "latch_3": 0.03, "other": 0.04 + 0.05 + 0.06 + 0.07}
    waits = {(x.labels["latch"], x.labels["source"]): x.value for x in s["mysqltop_latch_waits_total"]}
    assert waits[("other", "performance_schema")] == 4000 + 5000 + 6000 + 7000
    assert waits[("other", "innodb_mutex")] == 30
    assert all(x.labels["server"] == "db1:3306" for x in s["mysqltop_latch_waits_total"])
    assert [(x.labels["id"], x.value) for x in s["mysqltop_finding"]] == [("ahi_contention", 2.0)]


def test_latch_series_are_stable_when_the_hottest_change() -> None:
    """A latch keeps its series whatever its rank; a latch new after the cap joins `other` for good."""
    f = _frame()
    st = ServerState(name="db1:3306", frame=f, good=f, arrived=NOW, started=0.0)
    holder = [st]
    reg = _Reg(holder, 3)
    first = {x.labels["latch"] for x in _samples(generate_latest(reg).decode())["mysqltop_latch_waits_total"]}
    hot = LatchCounter("new_hot_latch", "performance_schema", 10**9, 10**6)
    g = _frame(latch_counters=[hot, *reversed(f.latch_counters)])
    holder[0] = ServerState(name="db1:3306", frame=g, good=g, arrived=NOW, started=0.0)
    second = {x.labels["latch"]: x.value
              for x in _samples(generate_latest(reg).decode())["mysqltop_latch_waits_total"]
              if x.labels["source"] == "performance_schema"}
    assert first == set(second) == {"latch_1", "latch_2", "latch_3", "other"}
    assert second["other"] == 4000 + 5000 + 6000 + 7000 + 10**9        # the newcomer counts in `other`


def test_a_finding_keeps_its_series_from_warning_to_critical() -> None:
    f, g = _frame(), _frame(advice=[Advice("ahi_contention", "critical", "m", "e")])
    series = []
    for frame in (f, g):
        st = ServerState(name="db1:3306", frame=frame, good=frame, arrived=NOW, started=0.0)
        s = _samples(generate_latest(_registry([st])).decode())
        series.append([(x.labels, x.value) for x in s["mysqltop_finding"]])
    assert series[0][0][0] == series[1][0][0]                 # same label set
    assert (series[0][0][1], series[1][0][1]) == (2.0, 3.0)


def test_hostile_label_values_are_escaped_and_made_visible_in_both_formats() -> None:
    f = _frame()
    st = ServerState(name="db\n1", frame=f, good=f, arrived=NOW, started=0.0)
    reg = _registry([st], cap=20)
    for om, text in ((False, generate_latest(reg).decode()), (True, generate_openmetrics(reg).decode())):
        assert "\x1b" not in text and "\x07" not in text
        s = _samples(text, om)                          # parses: quoting and escapes are valid
        latches = {x.labels["latch"] for x in s["mysqltop_latch_waits_total"]}
        assert 'evil"\\\\x0a\\x1b[2J' in latches
        info = s["mysqltop_server_info"][0].labels
        assert info["version"] == "10.11.6-MariaDB\\x1b]0;pwn\\x07"
        assert info["server"] == "db\\x0a1"


def test_stale_frame_leaves_a_gap_and_says_why() -> None:
    good = _frame()
    stale = Frame(time=NOW, stale=True, failure="timeout")
    st = ServerState(name="db2:3306", frame=stale, good=good, arrived=NOW - 4.0, started=0.0, polls=5, stale=1)
    s = _samples(generate_latest(_registry([st])).decode())
    assert s["mysqltop_up"][0].value == 0
    assert s["mysqltop_late"][0].value == 1                 # nothing for 4 s at a 1 s interval
    assert s["mysqltop_last_frame_age_seconds"][0].value == 4.0
    assert "mysqltop_transactions_total" not in s
    assert "mysqltop_latch_waits_total" not in s
    assert s["mysqltop_down_seconds"][0].value == NOW
    assert s["mysqltop_server_info"][0].labels["flavor"] == "mariadb"   # still named from the last good frame


def test_several_servers_each_labelled() -> None:
    a, b = _frame(), _frame(counters=Counters(transactions=5))
    states = [ServerState(name="a:1", frame=a, good=a, arrived=NOW, started=0.0),
              ServerState(name="b:2", frame=b, good=b, arrived=NOW, started=0.0),
              ServerState(name="c:3", started=NOW - 1)]          # never answered yet
    s = _samples(generate_latest(_registry(states)).decode())
    assert {x.labels["server"]: x.value for x in s["mysqltop_threads_running"]} == {"a:1": 4, "b:2": 4}
    assert {x.labels["server"]: x.value for x in s["mysqltop_up"]} == {"a:1": 1, "b:2": 1, "c:3": 0}
