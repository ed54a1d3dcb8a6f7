"""wait_until_stopped() (run_forever's wait): a SIGTERM the kernel delivers to
another thread than the main one still stops it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import unittest

SDK = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The main thread waits; SIGTERM goes to a helper thread, as the kernel may do for a process-wide
# signal when the main thread is blocked. CPython runs the handler on the main thread only.
SCRIPT = textwrap.dedent(
    """
    import signal, threading, time
    from engine_sdk._signals import wait_until_stopped
    helper = threading.Thread(target=lambda: time.sleep(30), daemon=True)
    helper.start()
    threading.Timer(0.2, lambda: signal.pthread_kill(helper.ident, signal.SIGTERM)).start()
    wait_until_stopped(threading.Event())
    print("stopped", flush=True)
    """
)


class SignalsTest(unittest.TestCase):
    def test_a_sigterm_delivered_to_another_thread_stops_the_wait(self) -> None:
        env = {**os.environ, "PYTHONPATH": SDK, "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                                  text=True, timeout=10)
        except subprocess.TimeoutExpired:
            self.fail("the wait did not end within 10 s of a SIGTERM delivered to another thread")
        self.assertEqual((done.returncode, done.stdout), (0, "stopped\n"), done.stderr)


if __name__ == "__main__":
    unittest.main()
