"""What every sample source offers: live MySQL (+host), or a recording being replayed; and the
capabilities only some offer, declared (PacedSource, LockHolderSource)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from mysqltop.core.sample import RawSample


class SampleSource(Protocol):
    def read(self) -> RawSample | None:
        """Block until the next sample; None when the source is exhausted (end of a recording).

        A live source never raises for server trouble: it returns a RawSample with `error` set
        (the frame becomes stale) and reconnects with back-off on later reads.
        """
        ...

    def close(self) -> None: ...


@runtime_checkable
class PacedSource(Protocol):
    """A source whose timeouts follow the poll interval (a live server)."""

    def set_interval(self, interval: float) -> None: ...


@runtime_checkable
class LockHolderSource(Protocol):
    """A source that can have the server list lock holders (a live server, on its own connection):
    the lines to show, or UserError saying why not."""

    def enable_lock_holders(self) -> list[str]: ...


# The TUI's feed thread (host counters, parsing, deriving) runs this much nicer than the process, so
# on a busy box the UI thread of the same program gets the CPU first and keys stay answered. Per
# thread, Linux only; raising niceness needs no privilege. The poll's own thread (the wire) is left
# alone: where no scheduler group separates mysqltop from the server, a nicer poll thread loses to
# the server's threads and samples come late (seen in bench/soak at 64 threads).
WORKER_NICENESS = 5


def nice_this_thread(step: int = WORKER_NICENESS) -> None:
    """Make the calling thread (only) `step` nicer where the OS allows it; silently a no-op elsewhere."""
    import os
    import threading

    setpriority = getattr(os, "setpriority", None)
    if setpriority is None or not hasattr(threading, "get_native_id"):
        return
    try:
        tid = threading.get_native_id()
        setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + step))
    except OSError:
        pass
