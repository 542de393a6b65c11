"""How much bcrypt the clients of serve may cost: a wrong-password flood must not take a database
host's CPU (one check is ~80 ms of CPU at cost 10; 60 threads of wrong passwords took 1.85 cores).

A pair already verified, or already refused, costs no check (web_config.py remembers both by
digest). Any other check is paid from two budgets of CPU seconds that refill with time: the
client's own (CLIENT_SHARE of a core) and everyone's together (TOTAL_SHARE); a check reserves
what the last ones cost before it starts (so a herd of concurrent requests cannot all pass on one
positive balance) and settles the difference after. With either budget spent the answer is 429 at
once, without hashing. A flood from any number of clients so costs at most TOTAL_SHARE of a core
in checks (plus a burst of TOTAL_BURST_S once), and a scraper whose password was verified once never
waits on it. While a client's own budget is spent, its new connections are taken at most
SPENT_CONNECTIONS_PER_S a second and the rest refused at accept (held unread, then closed:
slots.py), before the TLS handshake that would cost more than the answer. A wrong pair sent
again costs no check but is paid for as one, so repeating it is slowed the same way.

A flood from many addresses spends everyone's budget long before any one client's: each address
would then still cost a TLS handshake and a 429 per connection (200 addresses: half a core).
So while everyone's budget is spent, the clients that have not passed basic auth in the last
TRUSTED_S share STRANGER_CONNECTIONS_PER_S between them, the rest refused at accept as above.
A client that passed (a scraper) is not slowed by it; a stranger could not have had its password
checked then anyway, only a pair already verified from another address waits its turn.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

CLIENT_SHARE = 0.02           # of a core, per client address
TOTAL_SHARE = 0.025           # of a core, every client together
BURST_S = 0.5                 # CPU seconds a client's budget holds when full …
TOTAL_BURST_S = 0.25          # … and everyone's (about 3 checks at cost 10)
MAX_CLIENTS = 4096            # budgets kept; a full one is forgotten first
SPENT_CONNECTIONS_PER_S = 1.0  # connections taken from a client whose budget is spent
FIRST_ESTIMATE_S = 0.1        # what a check is reserved before one was measured (cost 10-11)
REFUSAL_COST = 0.25           # of a check, paid by a client for a 429
STRANGER_CONNECTIONS_PER_S = 2.0  # shared by clients not trusted, while everyone's budget is spent
TRUSTED_S = 900.0             # a client that passed basic auth is trusted this long after


class _Budget:
    def __init__(self, rate: float, now: float, burst: float = BURST_S) -> None:
        self.rate = rate
        self.burst = burst
        self.left = burst
        self.at = now
        self.last_connection = -1e9

    def refill(self, now: float) -> float:
        self.left = min(self.burst, self.left + (now - self.at) * self.rate)
        self.at = now
        return self.left


class AuthGate:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.refused = 0                    # checks not made: a budget was spent
        self.checks = 0                     # checks made
        self.closed = 0                     # connections closed at accept: the client's budget spent
        self.estimate = FIRST_ESTIMATE_S    # CPU seconds a check costs (recent ones)
        self._total = _Budget(TOTAL_SHARE, clock(), TOTAL_BURST_S)
        self._clients: dict[str, _Budget] = {}
        self._trusted: dict[str, float] = {}        # client → when it last passed, oldest first
        self._last_stranger = -1e9
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
        """A wrong pair `client` sent before: no check, but both budgets pay as for one, so the
        same wrong password repeated is slowed at accept like new ones."""
        now = self.clock()
        with self._lock:
            self._budget(client, now).left -= self.estimate
            self._total.refill(now)
            self._total.left = max(-TOTAL_BURST_S, self._total.left - self.estimate)

    def passed(self, client: str) -> None:
        """`client` passed basic auth: not a stranger for TRUSTED_S."""
        now = self.clock()
        with self._lock:
            self._trusted.pop(client, None)
            self._trusted[client] = now
            if len(self._trusted) > MAX_CLIENTS:
                self._trusted.pop(next(iter(self._trusted)))

    def take_connection(self, client: str) -> bool:
        """At accept: False to close a connection of a client whose budget is spent, or of a
        stranger beyond the shared rate while everyone's budget is spent."""
        now = self.clock()
        with self._lock:
            budget = self._clients.get(client)
            if budget is not None and budget.refill(now) <= 1e-9:
                if now - budget.last_connection < 1.0 / SPENT_CONNECTIONS_PER_S:
                    self.closed += 1
                    return False
                budget.last_connection = now
                return True
            if self._total.refill(now) > 1e-9 or now - self._trusted.get(client, -1e9) < TRUSTED_S:
                return True
            if now - self._last_stranger < 1.0 / STRANGER_CONNECTIONS_PER_S:
                self.closed += 1
                return False
            self._last_stranger = now
            return True

    def _forget(self, now: float) -> None:
        full = [c for c, b in self._clients.items() if b.refill(now) >= BURST_S]
        for c in full or list(self._clients)[:len(self._clients) - MAX_CLIENTS]:
            del self._clients[c]
