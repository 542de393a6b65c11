"""Locks & transactions: who blocks whom, the longest transactions, busy sessions by state.

The hottest blocker's `KILL <id>;` is on the pane's first line and one key (k) away as a
ready-to-copy line — only for a holder the server's rows confirm; an inferred one shows its
candidates and no KILL. mysqltop never runs it. Server text (statements, users, hosts) comes
through views/locks_text (controls made visible) and is only ever put in Text, never in markup.
"""

from __future__ import annotations

from typing import Sequence

from rich.style import StyleType
from rich.text import Text

from mysqltop.core import units
from mysqltop.core.frame import Frame
from mysqltop.views import deadlocks_text
from mysqltop.views import locks_text as lt
from mysqltop.views.tui.keymap import Key
from mysqltop.views.tui.widgets.pane import Pane, Rows
from mysqltop.views.tui.widgets.render import kv_lines, sparkline

TREND_W = 12


def _fit(line: str, width: int, style: StyleType = "") -> Text:
    return Text(line if len(line) <= width else line[:max(1, width - 1)] + "…", style=style)


class LocksPane(Pane):
    TITLE = "Locks & transactions"
    holders_key: Key | None = None    # the key that makes the server list holders here (None: none does)

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> Rows:
        lk = frame.locks
        p = self.palette
        lines: list[Text | str] = []
        many = 4 if self.zoomed else 1          # a zoomed pane lists more of everything

        def with_trend(value: float | None, history: list[float | None], style: StyleType) -> Text:
            spark = sparkline(history, TREND_W) if sum(v is not None for v in history) >= 2 else ""
            return Text.assemble(units.num(value), " " if spark else "", (spark, style))

        lines += kv_lines([
            ("row lock waits/s", with_trend(lk.row_lock_waits_per_s,
                                            [f.locks.row_lock_waits_per_s for f in trend], p.warm)),
            ("wait ms/s", with_trend(lk.row_lock_wait_ms_per_s,
                                     [f.locks.row_lock_wait_ms_per_s for f in trend], p.hot)),
            ("blocked", units.num(lt.blocked_count(frame))),
            ("oldest trx", lt.secs(lk.longest_transaction_s)),
            ("deadlocks/s", units.num(lk.deadlocks_per_s)),
        ], width)
        if frame.deadlock is not None:
            lines.append(_fit(deadlocks_text.one_line(frame.deadlock) + "  (d: the story)", width, p.warm))
        if frame.session_states:             # "16 in Commit" at a glance, above the detail
            lines.append(_fit(f"sessions: {lt.states_summary(frame.session_states)}", width, p.header))
        kill = lt.kill_line(frame)
        first = lt.release_first(frame)
        if kill:
            label = "release first: " if lt.worst_stall(frame) is not None else "hottest blocker: "
            lines.append(Text.assemble((label, p.header), (kill, p.hot),
                                       ("  (k: copy; mysqltop never kills)", p.dim)))
        elif first:
            offer = f"  ({self.holders_key.show}: make the server list holders)" if self.holders_key else ""
            lines.append(Text.assemble(("release first: ", p.header), (_fit(first, max(1, width - 15)).plain, p.warm),
                                       (offer, p.dim)))
        elif (note := lt.hottest_blocker(frame)) is not None:
            lines.append(Text.assemble(("hottest blocker: ", p.header), (_fit(note, max(1, width - 17)).plain, p.warm)))
        lines += [_fit(line, width, p.hot) for line in lt.stall_lines(frame)]
        if frame.blocking or frame.metadata_blocking:
            for trees in (frame.metadata_blocking, frame.blocking):
                if trees:
                    lines += [_fit(line, width) for line in lt.blocking_lines(
                        frame, top=lt.TOP_BLOCKERS * many, waiters=lt.TOP_WAITERS * many, trees=trees)]
        elif (why := lt.not_read(frame, "lock_waits")) is not None:
            lines.append(_fit(f"lock waits not read: {why}", width, p.note))
        elif lk.blocked_sessions is not None and not lt.blocked_count(frame):
            lines.append(Text("no session waits for a lock", style=p.dim))
        if (why := lt.not_read(frame, "sessions")) is not None:
            lines.append(_fit(f"sessions not read: {why}", width, p.note))
        if frame.sessions:
            lines.append(Text("busy sessions, longest in their state first", style=p.header))
            lines += [_fit(lt.session_line(s), width) for s in frame.sessions[:lt.TOP_SESSIONS * many]]
        if frame.transactions:
            lines.append(Text("transactions, longest first", style=p.header))
            lines += [_fit(lt.transaction_line(t), width) for t in frame.transactions[:lt.TOP_TRANSACTIONS * many]]
        if (why := lt.not_read(frame, "transactions")) is not None:
            lines.append(_fit(f"transactions not read: {why}", width, p.note))
        return Rows(lines)


def copy_kill_line(app: object, frame: Frame | None, holders_key: Key | None = None) -> None:
    """The `k` key: show the hottest blocker's KILL line in a toast and put it on the clipboard —
    a confirmed holder only; an inferred one shows the candidates and copies nothing (and the key
    that makes the server list holders, where there is one)."""
    line = lt.kill_line(frame) if frame is not None else None
    notify = getattr(app, "notify")
    if line is None and frame is not None and "lock_waits" in frame.unrecorded:
        notify(f"who blocks whom: lock waits {lt.NOT_RECORDED}", timeout=5, markup=False)
        return
    worst = lt.worst_stall(frame) if frame is not None else None
    if line is None and worst is not None:
        offer = (f" {holders_key.show} shows the statement that makes the server list the holder"
                 if holders_key is not None else "")
        notify(f"{lt.release_first(frame) if frame is not None else ''}; nothing copied.{offer}",
               title="holder not confirmed", timeout=15, markup=False)
        return
    if line is None:
        notify("no session is blocking another right now", timeout=3, markup=False)
        return
    try:
        getattr(app, "copy_to_clipboard")(line)
    except Exception:  # noqa: BLE001 - a terminal without OSC 52 still shows the line
        pass
    title = "release first" if worst is not None else "hottest blocker"
    notify(f"{line}   (copied; mysqltop never kills)", title=title, timeout=15, markup=False)
