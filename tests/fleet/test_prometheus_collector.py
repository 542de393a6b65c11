"""The serve collector: names and units, the bounded latch set, escaping, gaps for stale frames."""

from __future__ import annotations

from prometheus_client import generate_latest
from prometheus_client.openmetrics.exposition import generate_latest as generate_openmetrics
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om
from prometheus_client.parser import text_string_to_metric_families as parse_text
from prometheus_client.registry import CollectorRegistry

from mysqltop.core.frame import Advice, Flush, Frame, Hotspot, ServerInfo, Throughput
from mysqltop.views.fleet_poll import ServerState
from mysqltop.views.prometheus import FleetCollector

NOW = 1000.0


def _frame(**kw) -> Frame:
    spots = [Hotspot(name=f"latch_{i}", kind="mutex", source="performance_schema",
                     waits_per_s=10.0 * i, wait_ms_per_s=float(i)) for i in range(1, 8)]
    spots.append(Hotspot(name="latch_7", kind="mutex", source="performance_schema", waits_per_s=1.0,
                         wait_ms_per_s=1.0, site="other.cc:2"))      # same latch, second site: summed
    spots.append(Hotspot(name='evil"\\\n\x1b[2J', kind="mutex", source="innodb_mutex", waits_per_s=3.0))
    base = dict(time=NOW, server=ServerInfo(version="10.11.6-MariaDB\x1b]0;pwn\x07", flavor="mariadb"),
                throughput=Throughput(tps=123.5, qps=900.0, threads_running=4),
                flush=Flush(checkpoint_age_pct=42.0, checkpoint_age_bytes=1e6),
                hotspots=spots, advice=[Advice("ahi_contention", "warning", "m", "e")])
    base.update(kw)
    return Frame(**base)


def _registry(states: list[ServerState], top: int = 3) -> CollectorRegistry:
    reg = CollectorRegistry(auto_describe=False)
    reg.register(FleetCollector(lambda: states, 1.0, top=top, clock=lambda: NOW))
    return reg


def _samples(text: str, om: bool = False) -> dict[str, list]:
    out: dict[str, list] = {}
    for fam in (parse_om if om else parse_text)(text):
        for s in fam.samples:
            out.setdefault(s.name, []).append(s)
    return out


def test_names_units_counters_and_top_latches_with_other_bucket() -> None:
    f = _frame()
    st = ServerState(name="db1:3306", frame=f, good=f, arrived=NOW - 0.2, started=0.0, polls=7, stale=2,
                     late=1, poll_s=0.05)
    text = generate_latest(_registry([st])).decode()
    s = _samples(text)
    one = {k: v[0].value for k, v in s.items() if len(v) == 1}
    assert one["mysqltop_transactions_per_second"] == 123.5
    assert one["mysqltop_queries_per_second"] == 900.0
    assert one["mysqltop_checkpoint_age_ratio"] == 0.42
    assert one["mysqltop_polls_total"] == 7 and one["mysqltop_stale_polls_total"] == 2
    assert one["mysqltop_late_polls_total"] == 1 and one["mysqltop_up"] == 1
    assert one["mysqltop_poll_duration_seconds"] == 0.05
    assert "# TYPE mysqltop_polls_total counter" in text
    assert "# TYPE mysqltop_transactions_per_second gauge" in text
    # _total only on counters
    for line in text.splitlines():
        if line.startswith("# TYPE") and line.split()[2].endswith("_total"):
            assert line.split()[3] == "counter", line
    wait = {x.labels["latch"]: x.value for x in s["mysqltop_latch_wait_seconds_per_second"]}
    # top 3 by wait time: latch_7 (7 + 1 ms over two sites), latch_6, latch_5; the rest in `other`
    assert wait == {"latch_7": 0.008, "latch_6": 0.006, "latch_5": 0.005, "other": 0.010}
    waits = {(x.labels["latch"], x.labels["source"]): x.value for x in s["mysqltop_latch_waits_per_second"]}
    assert waits[("other", "performance_schema")] == 100.0       # 10+20+30+40
    assert waits[("other", "innodb_mutex")] == 3.0
    assert all(x.labels["server"] == "db1:3306" for x in s["mysqltop_latch_waits_per_second"])
    assert [(x.labels["id"], x.labels["severity"]) for x in s["mysqltop_finding"]] == [("ahi_contention", "warning")]


def test_hostile_label_values_are_escaped_and_made_visible_in_both_formats() -> None:
    f = _frame()
    st = ServerState(name="db\n1", frame=f, good=f, arrived=NOW, started=0.0)
    reg = _registry([st], top=20)
    for om, text in ((False, generate_latest(reg).decode()), (True, generate_openmetrics(reg).decode())):
        assert "\x1b" not in text and "\x07" not in text
        s = _samples(text, om)                          # parses: quoting and escapes are valid
        latches = {x.labels["latch"] for x in s["mysqltop_latch_waits_per_second"]}
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
    assert "mysqltop_transactions_per_second" not in s
    assert "mysqltop_latch_waits_per_second" not in s
    assert s["mysqltop_server_info"][0].labels["flavor"] == "mariadb"   # still named from the last good frame


def test_several_servers_each_labelled() -> None:
    a, b = _frame(), _frame(throughput=Throughput(tps=5.0))
    states = [ServerState(name="a:1", frame=a, good=a, arrived=NOW, started=0.0),
              ServerState(name="b:2", frame=b, good=b, arrived=NOW, started=0.0),
              ServerState(name="c:3", started=NOW - 1)]          # never answered yet
    s = _samples(generate_latest(_registry(states)).decode())
    assert {x.labels["server"]: x.value for x in s["mysqltop_transactions_per_second"]} == {"a:1": 123.5, "b:2": 5.0}
    assert {x.labels["server"]: x.value for x in s["mysqltop_up"]} == {"a:1": 1, "b:2": 1, "c:3": 0}
