"""What a worker tells the engine about itself (``engine::workers::register``)."""

from __future__ import annotations

import os
import platform
from typing import Any

from ._version import __version__


def os_description() -> str:
    """A short description of the OS, like ``linux 6.8.0 (x86_64)``."""
    return f"{platform.system().lower()} {platform.release()} ({platform.machine()})"


def worker_metadata(name: str, description: str | None) -> dict[str, Any]:
    """The payload of the void call to ``engine::workers::register`` sent after each open."""
    data: dict[str, Any] = {
        "runtime": "python",
        "version": __version__,
        "name": name,
        "os": os_description(),
        "pid": os.getpid(),
        "sdk": "engine-python",
    }
    if description:
        data["description"] = description
    return data
