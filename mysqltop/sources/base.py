"""What every sample source offers: live MySQL (+host), or a recording being replayed."""

from __future__ import annotations

from typing import Protocol

from mysqltop.core.sample import RawSample


class SampleSource(Protocol):
    def read(self) -> RawSample | None:
        """Block until the next sample; None when the source is exhausted (end of a recording).

        A live source never raises for server trouble: it returns a RawSample with `error` set
        (the frame becomes stale) and reconnects with back-off on later reads.
        """
        ...

    def close(self) -> None: ...
