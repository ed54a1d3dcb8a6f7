"""The real engine as a child process (``deno run main.ts --config …``), for the
cases whose point is what the engine does (it ends a connection sent too large a
message, say). Skipped where ``deno`` is not on PATH."""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MAIN = os.path.join(REPO, "main.ts")
CONFIG = "host: 127.0.0.1\nport: 0\nconsole:\n  enabled: false\nworkers: []\n"
LISTENING = re.compile(r"Engine listening on (ws://\S+)")


class RealEngine:
    """A listening engine: ``url``; ``stop()`` ends it (SIGTERM, then SIGKILL)."""

    def __init__(self, timeout: float = 30.0) -> None:
        deno = shutil.which("deno")
        if deno is None or not os.path.exists(MAIN):
            raise unittest.SkipTest("deno is not on PATH (or main.ts is missing): no real engine to run")
        self._dir = tempfile.TemporaryDirectory(prefix="engine-sdk-test-")
        config = os.path.join(self._dir.name, "engine-config.yaml")
        with open(config, "w", encoding="utf-8") as file:
            file.write(CONFIG)
        self._proc = subprocess.Popen(
            [deno, "run", "--allow-all", MAIN, "--config", config],
            cwd=self._dir.name,
            env={**os.environ, "NO_COLOR": "1"},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.output: list[str] = []
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, args=(lines,), daemon=True).start()
        try:
            self.url = self._wait_listening(lines, timeout)
        except BaseException:
            self.stop()
            raise

    def _read(self, lines: queue.Queue[str | None]) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self.output.append(line)
            lines.put(line)
        lines.put(None)

    def _wait_listening(self, lines: queue.Queue[str | None], timeout: float) -> str:
        while True:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"the engine did not listen within {timeout} s:\n{''.join(self.output)}") from None
            if line is None:
                raise AssertionError(f"the engine exited with {self._proc.wait()}:\n{''.join(self.output)}")
            found = LISTENING.search(line)
            if found:
                return found.group(1)

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._dir.cleanup()
