"""How much bcrypt the clients of serve may cost: a wrong-password flood must not take a database
host's CPU (one check is ~80 ms of CPU at cost 10; 60 threads of wrong passwords took 1.85 cores).

A pair already verified, or already refused, costs no check (web_config.py remembers both by
digest). Any other check is paid from two budgets of CPU seconds that refill with time: the
client's own (CLIENT_SHARE of a core) and everyone's together (TOTAL_SHARE); a check reserves
what the last ones cost before it starts (so a herd of concurrent requests cannot all pass on one
positive balance) and settles the difference after. With either budget spent the answer is 429 at
once, without hashing. A flood from any number of clients so costs at most TOTAL_SHARE of a core
in checks (plus a burst of BURST_S once), and a scraper whose password was verified once never
waits on it. While a client's own budget is spent, its new connections are taken at most
SPENT_CONNECTIONS_PER_S a second and the rest refused at accept (held unread, then closed:
slots.py), before the TLS handshake that would cost more than the answer. A wrong pair sent
again costs no check but is paid for as one, so repeating it is slowed the same way.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

CLIENT_SHARE = 0.02           # of a core, per client address
TOTAL_SHARE = 0.04            # of a core, every client together
BURST_S = 0.5                 # CPU seconds a budget holds when full
MAX_CLIENTS = 4096            # budgets kept; a full one is forgotten first
SPENT_CONNECTIONS_PER_S = 1.0  # connections taken from a client whose budget is spent
FIRST_ESTIMATE_S = 0.1        # what a check is reserved before one was measured (cost 10-11)
REFUSAL_COST = 0.25           # of a check, paid by a client for a 429


class _Budget:
    def __init__(self, rate: float, now: float) -> None:
        self.rate = rate
        self.left = BURST_S
        self.at = now
        self.last_connection = -1e9

    def refill(self, now: float) -> float:
        self.left = min(BURST_S, self.left + (now - self.at) * self.rate)
        self.at = now
        return self.left


class AuthGate:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.refused = 0                    # checks not made: a budget was spent
        self.checks = 0                     # checks made
        self.closed = 0                     # connections closed at accept: the client's budget spent
        self.estimate = FIRST_ESTIMATE_S    # CPU seconds a check costs (recent ones)
        self._total = _Budget(TOTAL_SHARE, clock())
        self._clients: dict[str, _Budget] = {}
        self._lock = threading.Lock()

    def _budget(self, client: str, now: float) -> _Budget:
        budget = self._clients.pop(client, None) or _Budget(CLIENT_SHARE, now)
        self._clients[client] = budget                  # most recent last
        if len(self._clients) > MAX_CLIENTS:
            self._forget(now)
        return budget

    def reserve(self, client: str) -> float | None:
        """May `client` have a password checked now? The CPU seconds reserved for it, or None."""
        now = self.clock()
        with self._lock:
            budget = self._budget(client, now)
            if budget.refill(now) <= 1e-9 or self._total.refill(now) <= 1e-9:
                self.refused += 1
                budget.left -= REFUSAL_COST * self.estimate   # asking on regardless keeps it spent
                return None
            budget.left -= self.estimate
            self._total.left -= self.estimate
            return self.estimate

    def settle(self, client: str, reserved: float, cpu_s: float) -> None:
        """The check `client` made took `cpu_s` of CPU, `reserved` was taken for it."""
        with self._lock:
            budget = self._clients.get(client)
            if budget is not None:
                budget.left -= cpu_s - reserved
            self._total.left -= cpu_s - reserved
            self.estimate = 0.7 * self.estimate + 0.3 * cpu_s
            self.checks += 1

    def refused_again(self, client: str) -> None:
        """A wrong pair `client` sent before: no check, but its budget pays as for one, so the
        same wrong password repeated is slowed at accept like new ones."""
        now = self.clock()
        with self._lock:
            self._budget(client, now).left -= self.estimate

    def take_connection(self, client: str) -> bool:
        """At accept: False to close a connection of a client whose budget is spent."""
        now = self.clock()
        with self._lock:
            budget = self._clients.get(client)
            if budget is None or budget.refill(now) > 1e-9:
                return True
            if now - budget.last_connection < 1.0 / SPENT_CONNECTIONS_PER_S:
                self.closed += 1
                return False
            budget.last_connection = now
            return True

    def _forget(self, now: float) -> None:
        full = [c for c, b in self._clients.items() if b.refill(now) >= BURST_S]
        for c in full or list(self._clients)[:len(self._clients) - MAX_CLIENTS]:
            del self._clients[c]
