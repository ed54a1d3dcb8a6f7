"""The channel ends of a worker whose sockets are open: :class:`OpenEnds`.

A handler may return before the stream it writes has ended (an HTTP response
streamed from a task), and an end may stay open for good (a reader whose
writer never ends, a writer its handler never closed). At shutdown the worker
gives its open ends what is left of the drain time to close, then breaks the
rest off: their peers see an error rather than a clean end, which would make
a cut-off stream look complete, and no socket outlives the worker.

Everything here runs on the worker's event loop.
"""

from __future__ import annotations

import asyncio
from typing import Protocol


class BreakableEnd(Protocol):
    """What :class:`OpenEnds` needs of an end."""

    async def _break_off(self, why: str) -> None:
        """Fails the end's own use with ``why`` and closes its socket (code 1001)."""


class OpenEnds:
    """The open ends of one worker.

    Example::

        ends = OpenEnds()
        ends.add(end)                                   # its socket opened
        ends.discard(end)                               # its socket closed
        await ends.close(1.5, "the worker shut down")   # waits, then breaks the rest off
        ends.add(other)                                 # False: no end opens any more
    """

    def __init__(self) -> None:
        self._ends: set[BreakableEnd] = set()
        self._emptied: asyncio.Event | None = None
        self.refusal: str | None = None
        """Why no end may open any more (set by :meth:`close`), else ``None``."""

    def __len__(self) -> int:
        return len(self._ends)

    def add(self, end: BreakableEnd) -> bool:
        """Records an end whose socket opened; ``False`` (not recorded) once :meth:`close` began
        breaking ends off."""
        if self.refusal is not None:
            return False
        self._ends.add(end)
        return True

    def discard(self, end: BreakableEnd) -> None:
        """Forgets an end whose socket closed."""
        self._ends.discard(end)
        if not self._ends and self._emptied is not None:
            self._emptied.set()

    async def close(self, timeout_s: float, why: str) -> None:
        """Waits up to ``timeout_s`` seconds for every end to close, then refuses new ones and
        breaks the ones still open with ``why``; returns once their sockets closed."""
        if self._ends and timeout_s > 0:
            self._emptied = asyncio.Event()
            try:
                await asyncio.wait_for(self._emptied.wait(), timeout_s)
            except asyncio.TimeoutError:
                pass
        self.refusal = why
        await asyncio.gather(*(end._break_off(why) for end in list(self._ends)), return_exceptions=True)
