"""The guards of serve's HTTP side, on a clock of their own: connection slots (idle ones go first,
no client keeps many waiting) and the CPU budgets of password checks."""

from __future__ import annotations

import math

import socket

import pytest

from mysqltop.serve import auth_gate, slots as slots_mod
from mysqltop.serve.auth_gate import AuthGate
from mysqltop.serve.slots import Slots


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _pairs(n: int) -> list[tuple[socket.socket, socket.socket]]:
    return [socket.socketpair() for _ in range(n)]


def _cut(s: socket.socket) -> bool:
    """The far end was shut down."""
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False


def test_a_newcomer_takes_the_slot_of_the_longest_waiting_connection() -> None:
    clock = Clock()
    slots = Slots(3, clock=clock)
    pairs = _pairs(5)
    try:
        for k in range(3):
            assert slots.admit(pairs[k][0], "10.0.0.9" if k else "10.0.0.1", 5.0)
            clock.t += 0.1
        slots.headers_in(pairs[0][0].fileno())            # a scraper's request is in: never evicted
        assert not slots.admit(pairs[3][0], "10.0.0.2", 5.0)       # nobody waited MIN_IDLE_S yet
        clock.t += slots_mod.MIN_IDLE_S
        assert slots.admit(pairs[3][0], "10.0.0.2", 5.0)
        assert _cut(pairs[1][1]) and not _cut(pairs[2][1]) and not _cut(pairs[0][1])
        assert slots.evicted == 1 and len(slots) == 3
        slots.release(pairs[1][0].fileno())                # the evicted one's thread ends: nothing to do
        assert len(slots) == 3
    finally:
        slots.stop()
        for a, b in pairs:
            a.close()
            b.close()


def test_the_sweep_cuts_late_ones_and_a_client_keeps_few_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slots_mod, "MAX_IDLE_PER_CLIENT", 2)
    clock = Clock()
    slots = Slots(100, clock=clock)
    pairs = _pairs(6)
    try:
        for k in range(5):                                  # one client, five waiting connections
            assert slots.admit(pairs[k][0], "10.0.0.66", 30.0)
            clock.t += 0.01
        assert slots.admit(pairs[5][0], "10.0.0.7", 2.0)     # another client, a short deadline
        slots.sweep()
        assert not any(_cut(b) for _, b in pairs)            # nobody waited MIN_IDLE_S yet
        clock.t += slots_mod.MIN_IDLE_S
        slots.sweep()
        assert [_cut(b) for _, b in pairs[:5]] == [True, True, True, False, False]   # the oldest go
        assert not _cut(pairs[5][1])
        clock.t += 2.0
        slots.sweep()
        assert _cut(pairs[5][1]) and slots.cut == 4 and len(slots) == 2
    finally:
        slots.stop()
        for a, b in pairs:
            a.close()
            b.close()


def test_a_herd_of_concurrent_checks_cannot_pass_on_one_positive_balance() -> None:
    clock = Clock()
    gate = AuthGate(clock=clock)
    passed = [gate.reserve("10.0.0.66") for _ in range(100)]    # all before any settles
    n = sum(r is not None for r in passed)
    # everyone's budget is the smaller: it holds about three checks
    assert n == math.ceil(auth_gate.TOTAL_BURST_S / auth_gate.FIRST_ESTIMATE_S - 1e-9) == 3
    assert gate.refused == 97


def test_budgets_refill_at_their_share_and_one_client_leaves_room_for_others() -> None:
    clock = Clock()
    gate = AuthGate(clock=clock)
    checks = 0
    for _ in range(600):                                  # a flood from one address for 60 s
        clock.t += 0.1
        r = gate.reserve("10.0.0.66")
        if r is not None:
            gate.settle("10.0.0.66", r, 0.08)
            checks += 1
    cpu = checks * 0.08
    assert cpu <= auth_gate.BURST_S + auth_gate.CLIENT_SHARE * 60 + 0.08
    assert gate.reserve("10.0.0.5") is not None           # another client still has its checks


def test_a_client_with_its_budget_spent_gets_one_connection_a_second() -> None:
    clock = Clock()
    gate = AuthGate(clock=clock)
    assert all(gate.take_connection("10.0.0.66") for _ in range(50))     # nothing spent yet
    for _ in range(int(auth_gate.BURST_S / auth_gate.FIRST_ESTIMATE_S) + 1):
        gate.refused_again("10.0.0.66")                   # its own budget spent (everyone's too)
    taken = sum(gate.take_connection("10.0.0.66") for _ in range(50))
    assert taken == 1 and gate.closed == 49
    gate.passed("10.0.0.5")
    assert all(gate.take_connection("10.0.0.5") for _ in range(5))       # a client that passed: not slowed
    assert gate.take_connection("10.0.0.7")               # a stranger: its share of the shared rate
    clock.t += 1.0 / auth_gate.SPENT_CONNECTIONS_PER_S
    assert gate.take_connection("10.0.0.66")


def test_a_refused_connection_is_held_unread_then_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slots_mod, "MAX_HELD", 2)
    clock = Clock()
    slots = Slots(10, clock=clock)
    pairs = _pairs(3)
    try:
        for a, _ in pairs:
            slots.hold(a)
        assert [_cut(b) for _, b in pairs] == [True, False, False]      # over MAX_HELD: the oldest goes
        clock.t += slots_mod.HOLD_S
        slots.sweep()
        assert [_cut(b) for _, b in pairs[1:]] == [True, True]
    finally:
        slots.stop()
        for a, b in pairs:
            a.close()
            b.close()


def test_a_wrong_pair_sent_again_is_paid_for_as_a_check() -> None:
    gate = AuthGate(clock=Clock())
    for _ in range(int(auth_gate.BURST_S / auth_gate.FIRST_ESTIMATE_S) + 1):
        gate.refused_again("10.0.0.66")
    assert gate.reserve("10.0.0.66") is None
    assert gate.take_connection("10.0.0.66") and not gate.take_connection("10.0.0.66")


def test_strangers_share_a_few_connections_while_everyones_budget_is_spent() -> None:
    clock = Clock()
    gate = AuthGate(clock=clock)
    gate.passed("10.0.0.5")                               # the scraper, verified once
    for k in range(10):                                   # a flood from many addresses
        while (r := gate.reserve(f"10.0.1.{k}")) is not None:
            gate.settle(f"10.0.1.{k}", r, 0.1)
    strangers = [f"10.0.2.{k}" for k in range(200)]
    taken = sum(gate.take_connection(a) for a in strangers)
    assert taken == 1 and gate.closed == 199
    assert all(gate.take_connection("10.0.0.5") for _ in range(20))      # the scraper is not slowed
    clock.t += 1.0 / auth_gate.STRANGER_CONNECTIONS_PER_S
    assert sum(gate.take_connection(a) for a in strangers) == 1
    clock.t += auth_gate.TRUSTED_S                        # long since it passed; budgets full again
    assert gate.take_connection("10.0.0.5") and gate.take_connection("10.0.2.7")


def test_a_wrong_pair_repeated_from_many_addresses_spends_everyones_budget() -> None:
    gate = AuthGate(clock=Clock())
    for k in range(10):
        gate.refused_again(f"10.0.1.{k}")
    assert gate.reserve("10.0.0.9") is None               # a new client: no check now
    assert gate.take_connection("10.0.2.1") and not gate.take_connection("10.0.2.2")
