"""What registering gives back: a handle whose ``unregister()`` undoes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class FunctionRef:
    """A registered function. ``unregister()`` removes it from the engine."""

    id: str
    unregister: Callable[[], None]


@dataclass(frozen=True)
class Trigger:
    """A registered trigger. ``unregister()`` unbinds it."""

    id: str
    unregister: Callable[[], None]


@dataclass(frozen=True)
class TriggerTypeRef:
    """A trigger type this worker provides. ``unregister()`` stops providing it."""

    id: str
    unregister: Callable[[], None]
