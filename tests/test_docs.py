"""docs/ states the contracts: every frame key docs/json.md lists is in real `snapshot` JSON (a key
renamed or dropped fails here), and the repo's docs point inside the repo."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mysqltop.commands.demo import INCIDENT
from mysqltop.core.frame import (CappedRead, ClassShape, DigestRate, Frame, Host, LoadSession, LoadSlice,
                                 WaitLoad)
from mysqltop.core.innodb.deadlock import Deadlock, DeadlockTrx
from mysqltop.core.blocking import Blocker, LockWaiter, Session, SessionState, Transaction
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.recording.reader import RecordingReader

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def documented_keys() -> dict[str, set[str]]:
    """{"": top-level keys, "io": its keys, "io.threads": item keys, …} from the frame-keys block."""
    out: dict[str, set[str]] = {"": set()}
    for joined in _entries("frame-keys", r"^[a-z_]+\s"):
        key = joined.split()[0]
        out[""].add(key)
        group = re.match(r"^\w+\s+\[?\{([^}]*)\}", joined)           # "io  {threads, pending_reads, …}"
        if group:
            out[key] = set(re.findall(r"\w+", group.group(1)))
        for sub, fields in re.findall(r"(\w+): \[\{([^}]*)\}", joined):   # "threads: [{id, role, …}]"
            out[f"{key}.{sub}"] = set(re.findall(r"\w+", fields))
    return out


def _block(name: str) -> str:
    text = (DOCS / "json.md").read_text()
    return text.split(f"<!-- {name} -->", 1)[1].split(f"<!-- /{name} -->", 1)[0].strip().strip("`")


def _entries(name: str, starts: str) -> list[str]:
    """The block's entries, each a line matching `starts` joined with its indented continuations."""
    entries: list[list[str]] = []
    for line in _block(name).splitlines():
        if re.match(starts, line):
            entries.append([line])
        elif line.strip() and entries:
            entries[-1].append(line.strip())
    return [" ".join(lines) for lines in entries]


def documented_report_keys() -> dict[str, set[str]]:
    """{"": top-level keys, "hotspots": item keys, …} from the report-keys block."""
    out: dict[str, set[str]] = {"": set()}
    for joined in _entries("report-keys", r"^[a-z_]+[\s,]"):
        head = re.match(r"^([a-z_]+(?:, [a-z_]+)*)", joined)
        assert head is not None
        keys = head.group(1).split(", ")
        out[""].update(keys)
        group = re.match(r"^\w+\s+\[?\{([^}]*)\}", joined)
        if group and len(keys) == 1:
            out[keys[0]] = set(re.findall(r"\w+", group.group(1)))
    return out


def test_report_json_keys_are_documented_both_ways() -> None:
    from mysqltop.commands.report import window_report
    from mysqltop.core.lock_report import ChainSummary, StallEpisode
    from mysqltop.core.incident_report import Outage

    report = window_report(str(INCIDENT), None, None)
    report.blocking_chains = [ChainSummary(1, "1", "u", "h", "Query", "UPDATE t", 0.0, 1.0, 2, 1, 0.5, 2, "KILL 1")]
    report.outages = [Outage(0.0, 1.0, 2, "poll failed", "lost")]       # the bundled incident had none
    report.stalls = [StallEpisode("row_lock", "a row lock", 0.0, 1.0, False, 2, 5.0, 1, "u", "h", "Sleep", None,
                                  "KILL 1", "lock tables", "KILL 1", 2)]
    from mysqltop.core import top_sql
    from mysqltop.core.frame import DigestRate
    report.digests = top_sql.window([[DigestRate("s", "d", "SELECT ?", 2.0, 1.0, 3.0, 0.002, 1.0, 1.0, 0.0, 0.0, 10.0)]],
                                    10.0)
    d = json.loads(json.dumps(report.to_dict()))
    keys = documented_report_keys()
    assert set(d) == keys[""], f"report keys not documented / documented but absent: {set(d) ^ keys['']}"
    for name, want in keys.items():
        if not name:
            continue
        value = d[name]
        have = set(value[0]) if isinstance(value, list) and value else set(value) if isinstance(value, dict) else set()
        assert have == want, f"report {name}: undocumented {sorted(have - want)}, absent {sorted(want - have)}"


def incident_frames() -> list[Frame]:
    reader = RecordingReader(INCIDENT)
    try:
        pipe = PolledTimeline()
        return [pipe.push(reader.sample(i)) for i in range(len(reader))]
    finally:
        reader.close()


def test_every_documented_frame_key_is_in_real_frames() -> None:
    keys = documented_keys()
    assert {"time", "stale", "hotspots", "advice", "io", "host"} <= keys[""]
    assert {"tps", "qps"} <= keys["throughput"] and {"id", "role", "state"} <= keys["io.threads"]
    seen: dict[str, set[str]] = {}
    # the incident holds no lock trees: one frame with one of each row covers their keys
    locked = Frame(time=0.0, blocking=[Blocker(thread_id=1, trx_id="1", waiters=[LockWaiter(thread_id=2, trx_id="2")])],
                   transactions=[Transaction(trx_id="1")], sessions=[Session(thread_id=1)],
                   session_states=[SessionState(command="Query", state="updating", sessions=1)],
                   deadlock=Deadlock(transactions=[DeadlockTrx(1)]),
                   load=WaitLoad(top=[ClassShape("cpu", "SELECT ?", 1)],
                                 sessions=[LoadSession("cpu", "CPU", "SELECT ?", "u", "h", "s", "x", 1.0)],
                                 slices={"user": [LoadSlice("u", 1.0, {"cpu": 1.0})]}),
                   capped_reads=[CappedRead("ps_waits", "statement_time", 2.0, 2.0, 5.0, True)],
                   digests=[DigestRate("s", "d", "SELECT ?", 1.0, 1.0, 1.0, 0.001, 1.0, 1.0, 0.0, 0.0, 10.0)])
    for frame in [*incident_frames(), locked]:
        d = json.loads(json.dumps(frame.to_dict(), default=str))
        seen.setdefault("", set()).update(d)
        for key, value in d.items():
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, dict):
                    seen.setdefault(key, set()).update(item)
                    for sub, subvalue in item.items():
                        for x in subvalue if isinstance(subvalue, list) else []:
                            if isinstance(x, dict):
                                seen.setdefault(f"{key}.{sub}", set()).update(x)
    missing = {name: sorted(want - seen.get(name, set())) for name, want in keys.items()
               if want - seen.get(name, set())}
    assert not missing, f"docs/json.md lists keys that frames do not have: {missing}"
    undocumented = {name: sorted(seen[name] - want) for name, want in keys.items()
                    if name in seen and seen[name] - want}
    undocumented.update({name: sorted(got) for name, got in seen.items()
                         if name not in keys and name not in ("errors", "read_at")})   # maps: statement → …
    assert not undocumented, f"frames have keys docs/json.md does not list: {undocumented}"


def test_docs_and_readme_stay_inside_the_repo() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "../shared" not in readme and "docs/" in readme
    for doc in DOCS.glob("*.md"):
        for target in re.findall(r"\]\(([^)#]+\.md)\)", doc.read_text()):
            assert (DOCS / target).is_file(), f"{doc.name} links to missing {target}"


def test_metrics_doc_is_the_registry() -> None:
    """docs/metrics.md lists exactly the registry (serve and snapshot --format openmetrics use it)."""
    from mysqltop.core import metrics

    text = (DOCS / "metrics.md").read_text()
    table = text.split("<!-- metrics -->\n", 1)[1].split("<!-- /metrics -->", 1)[0]
    assert table == metrics.markdown_table(), "docs/metrics.md is out of date: paste core.metrics.markdown_table()"


def test_every_metric_reads_a_documented_frame_field() -> None:
    """The registry's paths are fields of the Frame that docs/json.md lists: JSON and metrics agree."""
    from mysqltop.core import metrics

    doc = (DOCS / "json.md").read_text()
    for m in metrics.ALL:
        for path in filter(None, (m.path, m.frame_field)):
            group, _, field = path.replace("[]", "").partition(".")
            assert group in doc, f"{m.full}: {group} not in docs/json.md"
            if field:
                assert field in doc, f"{m.full}: {path} not in docs/json.md"


def test_signals_inventory_names_real_frame_fields_and_findings() -> None:
    """docs/signals.md: every `group.field` it names is a Frame field, every finding id a rule's,
    and every pressure counter derive reads is in the inventory."""
    import dataclasses
    import re

    from mysqltop.core import pressure_signals

    text = (DOCS / "signals.md").read_text()
    frame = Frame(time=0.0, host=Host())
    cells = [row.split("|")[3] for row in text.splitlines()
             if row.startswith("| ") and row.count("|") == 6 and not row.startswith("| signal")]
    named = {m for cell in cells for m in re.findall(r"`([a-z_]+)\.([a-z_*]+)`", cell)}
    assert len(named) > 30
    for group, name in named:
        obj = getattr(frame, group, None)
        assert obj is not None, f"docs/signals.md: no frame group {group}"
        if name in ("*", "*_per_s") or not dataclasses.is_dataclass(obj):
            continue
        fields = {f.name for f in dataclasses.fields(obj)}
        prefix = name.rstrip("*")
        assert name in fields or (name.endswith("*") and any(f.startswith(prefix) for f in fields)), \
            f"docs/signals.md: {group}.{name}"
    rules_src = "".join(p.read_text() for p in (ROOT / "mysqltop" / "core" / "rules").glob("*.py"))
    for finding in set(re.findall(r"\| `([a-z_]+)`(?: \(evidence\))?(?:, `[a-z_*]+`)* \|", text)):
        if finding.startswith(("stall_", "pending_aio_")):
            continue
        assert f'"{finding}"' in rules_src, f"docs/signals.md: no finding {finding}"
    for counter, _ in (*pressure_signals.PRESSURE_RATES, *pressure_signals.PRESSURE_LEVELS):
        assert f"`{counter}`" in text, f"docs/signals.md does not list {counter}"
