"""Untrusted text in every non-TUI output: control characters shown, never emitted raw;
OpenMetrics label values escaped as the spec says; JSON strict and escaped."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from mysqltop.core.frame import Advice, Frame, Hotspot, IoThread, ServerInfo
from mysqltop.core.safe_text import json_text
from mysqltop.views.headless import FORMATS, writer_for
from mysqltop.views.parse_text import render

EVIL = "x\x1b]0;PWNED\x07\x1b[2J\x1b[31m\x9b2J\u202e\"\\\n,|y"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def hostile_frame() -> Frame:
    f = Frame(time=1_700_000_000.0, elapsed=1.0, server=ServerInfo(version=EVIL, flavor="mariadb", address=EVIL),
              hotspots=[Hotspot(name=EVIL, kind="mutex", source="performance_schema", waits_per_s=1.0, share=1.0,
                                site=EVIL)],
              advice=[Advice(id=EVIL, severity="warning", message=EVIL, evidence=EVIL)],
              notes=[EVIL], errors={EVIL: EVIL})
    f.io.threads = [IoThread(id=1, role="read", state=EVIL)]
    return f


def test_no_format_emits_a_raw_control_character() -> None:
    for fmt in FORMATS:
        w = writer_for(fmt, width=80)
        out = w.header() + w.frame(hostile_frame()) + w.footer()
        body = out.replace("\n", "")
        assert RAW.search(body) is None, (fmt, RAW.search(body))
        assert "\\x1b]0;PWNED" in out or "\\u001b]0;PWNED" in out, fmt


def test_openmetrics_label_values_are_escaped_per_spec() -> None:
    out = writer_for("openmetrics").frame(hostile_frame())
    line = next(x for x in out.splitlines() if x.startswith("mysqltop_server_info{"))
    value = re.search(r'version="((?:[^"\\]|\\[\\"n])*)"', line)
    assert value is not None, line                      # only \\ \" \n escapes inside quotes
    unescaped = re.sub(r'\\([\\"n])', lambda m: {"n": "\n"}.get(m[1], m[1]), value[1])
    assert unescaped == EVIL.replace("\x1b", "\\x1b").replace("\x07", "\\x07").replace("\n", "\\x0a") \
        .replace("\x9b", "\\x9b").replace("\u202e", "\\u202e")


def test_json_is_strict_and_escaped() -> None:
    out = writer_for("json").frame(hostile_frame())
    assert RAW.search(out.rstrip("\n")) is None
    assert json.loads(out)["advice"][0]["message"] == EVIL
    assert json_text({"a": float("inf"), "b": [float("nan")], "c": "\x85"}) == '{"a": null, "b": [null], "c": "\\u0085"}'


def test_parse_text_shows_control_characters() -> None:
    out = render(EVIL, {"kind": "global_status", "Uptime": EVIL})
    assert RAW.search(out.replace("\n", "")) is None and "\\x1b[2J" in out


def test_error_messages_show_control_characters(tmp_path) -> None:
    bad = tmp_path / "a\x1b[2Jb"
    res = subprocess.run([sys.executable, "-m", "mysqltop", "parse", str(bad)], capture_output=True, text=True)
    assert res.returncode == 2 and "a\\x1b[2Jb" in res.stderr and "\x1b" not in res.stderr


def test_report_text_and_markdown_show_control_characters() -> None:
    from mysqltop.views import report_text

    blocks = [report_text.Block(EVIL, lines=[EVIL]), report_text.Block(EVIL, lines=[EVIL], header=[EVIL],
                                                                      rows=[[EVIL]], pre=[EVIL])]
    for out in (report_text._text(blocks), report_text._markdown(blocks)):
        assert RAW.search(out.replace("\n", "")) is None and "\\x1b]0;PWNED" in out


def test_markdown_report_shows_markup_in_statements_as_typed() -> None:
    """Statement text, user names and identifiers went into the Markdown report raw: pasted into
    a wiki or ticket, `[x](https://evil)` became a link, `<img …>` HTML and `*a*` emphasis."""
    from mysqltop.views import report_text

    sql = "SELECT /* [x](https://evil) <img src=y onerror=z> *a* `c` ~~s~~ _u_ &amp; | */ LOCK_table_cache"
    out = report_text._markdown([report_text.Block("t"), report_text.Block("Blocking", lines=[sql],
                                                                           header=["who"], rows=[[sql]])])
    escaped = (r"SELECT /\* \[x\](https://evil) \<img src=y onerror=z\> \*a\* \`c\` \~\~s\~\~ \_u\_ \&amp; \| \*/ "
               "LOCK_table_cache")
    assert f"- {escaped}\n" in out
    assert f"| {escaped} |\n" in out
