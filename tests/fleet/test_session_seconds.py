"""mysqltop_session_seconds_total{wait_class}: session-seconds per class, added frame by frame by
the exporter, parsed back by the Prometheus and OpenMetrics parsers."""

from __future__ import annotations

from dataclasses import replace

from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om
from prometheus_client.parser import text_string_to_metric_families as parse_text

from mysqltop.core.frame import WAIT_CLASSES, Frame
from mysqltop.core.blocking import SessionState
from mysqltop.core.wait_load import add_seconds, of
from mysqltop.fleet import ServerState
from mysqltop.views.prometheus import Exposition


def frame(elapsed: float | None, stale: bool = False) -> Frame:
    f = Frame(time=0.0, elapsed=elapsed, stale=stale,
              session_states=[SessionState("Query", "Sending data", 3), SessionState("Query", "Commit", 1)])
    return replace(f, load=of(f))


def test_session_seconds_add_up_fresh_frames_only() -> None:
    acc: tuple[float, ...] = ()
    for f in (frame(None), frame(2.0), frame(0.5, stale=True), frame(1.0)):
        acc = add_seconds(acc, f)
    got = dict(zip(WAIT_CLASSES, acc))
    assert (got["cpu"], got["commit"], got["row_lock"]) == (9.0, 3.0, 0.0)


def test_exposition_has_one_counter_per_class() -> None:
    st = ServerState(name="db1:3306", frame=frame(1.0), good=frame(1.0), arrived=0.0, started=0.0,
                     session_seconds=add_seconds((), frame(4.0)))
    ex = Exposition(lambda: [st], 1.0, clock=lambda: 0.1)
    for text, parse in ((ex.render().decode(), parse_text), (ex.render(openmetrics=True).decode(), parse_om)):
        fam = next(f for f in parse(text) if f.name == "mysqltop_session_seconds")
        values = {s.labels["wait_class"]: s.value for s in fam.samples if s.name.endswith("_total")}
        assert values == {"cpu": 12.0, "row_lock": 0.0, "metadata_lock": 0.0, "latch": 0.0, "io": 0.0,
                          "commit": 4.0, "other": 0.0}
        assert fam.type == "counter"


def sliced(elapsed: float, users: list[str], schema: str = "shop") -> Frame:
    from mysqltop.core.frame import LoadSession
    f = frame(elapsed)
    f.load.sessions = [LoadSession("cpu", "CPU", "SELECT ?", u, "h", schema, "x", 1.0) for u in users]
    f.load.sessions_known = True
    return f


def test_user_and_schema_series_are_capped_with_the_rest_in_other() -> None:
    st = ServerState(name="db1:3306", frame=frame(1.0), good=frame(1.0), arrived=0.0, started=0.0)
    ex = Exposition(lambda: [st], 1.0, clock=lambda: 0.1, max_load=2)
    ex.prepare("db1:3306", sliced(2.0, ["a", "b"]))
    ex.prepare("db1:3306", sliced(1.0, ["c", "other", "a"], schema="dw"))
    ex.prepare("db1:3306", sliced(1.0, ["b"], schema="x"))
    stale = replace(sliced(9.0, ["a"]), stale=True)
    ex.prepare("db1:3306", stale)
    for text, parse in ((ex.render().decode(), parse_text), (ex.render(openmetrics=True).decode(), parse_om)):
        users = next(f for f in parse(text) if f.name == "mysqltop_user_session_seconds")
        got = {s.labels["user"]: s.value for s in users.samples if s.name.endswith("_total")}
        # a, b first come; c and a user named "other" (kept apart from the bucket) beyond the cap
        assert got == {"a": 3.0, "b": 3.0, "other": 2.0}
        schemas = next(f for f in parse(text) if f.name == "mysqltop_schema_session_seconds")
        got = {s.labels["schema"]: s.value for s in schemas.samples if s.name.endswith("_total")}
        assert got == {"shop": 4.0, "dw": 3.0, "other": 1.0} and users.type == "counter"
