"""Blocking until the process is asked to stop (SIGINT or SIGTERM)."""

from __future__ import annotations

import signal
import threading


_POLL_S = 0.2
"""How often the main thread wakes to run a signal handler the kernel gave another thread."""


class _Stop(Exception):
    """Raised by the SIGTERM handler to unwind the wait."""


def wait_until_stopped(stopped: threading.Event) -> None:
    """Blocks until ``stopped`` is set, or, on the main thread, until SIGINT
    (Ctrl-C) or SIGTERM arrives.

    The SIGTERM handler is installed only for the duration of the wait and the
    previous one is restored afterwards.
    """
    if threading.current_thread() is not threading.main_thread():
        stopped.wait()
        return

    def on_term(signum: int, frame: object) -> None:
        raise _Stop()

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        # Python runs a signal's handler on the main thread, but the kernel may deliver the signal
        # to any other thread (the loop's, a handler's): a main thread blocked in one long wait
        # would not see it until something else woke it. Waking now and then lets it run.
        while not stopped.wait(_POLL_S):
            pass
    except (KeyboardInterrupt, _Stop):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
