"""What this worker has registered: trigger types, functions and triggers,
replayed on every (re)connect. Thread-safe: user threads add entries, the event
loop reads them."""

from __future__ import annotations

import inspect
import json
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from .providers import ProvidedType


@dataclass(frozen=True)
class FunctionEntry:
    """A registered function and how to call its handler."""

    id: str
    handler: Callable[..., Any]
    description: str | None
    is_async: bool
    wants_metadata: bool
    details: Mapping[str, Any] | None = None
    """``metadata``, ``request_format`` and ``response_format``, those given."""

    def frame(self) -> dict[str, Any]:
        """The ``registerfunction`` frame."""
        frame: dict[str, Any] = {"type": "registerfunction", "id": self.id}
        if self.description is not None:
            frame["description"] = self.description
        if self.details:
            frame.update(self.details)
        return frame


def make_entry(
    function_id: str,
    handler: Callable[..., Any],
    description: str | None,
    details: Mapping[str, Any] | None = None,
) -> FunctionEntry:
    """Describes ``handler``; raises ``TypeError`` naming the id when it is not callable, and
    ``ValueError`` when ``description`` is not a string, ``metadata`` not a dict, or a detail holds
    a value JSON cannot encode (each is kept for every replay)."""
    if not callable(handler):
        raise TypeError(
            f'Cannot register function "{function_id}": the handler is not callable ({type(handler).__name__})'
        )
    if description is not None and not isinstance(description, str):
        raise ValueError(
            f'Invalid function "{function_id}": "description" must be a string, got {type(description).__name__}'
        )
    kept = {key: value for key, value in (details or {}).items() if value is not None}
    if "metadata" in kept and not isinstance(kept["metadata"], Mapping):
        raise ValueError(
            f'Invalid function "{function_id}": "metadata" must be a dict, got {type(kept["metadata"]).__name__}'
        )
    if "metadata" in kept:
        kept["metadata"] = dict(kept["metadata"])  # json encodes dicts, not every Mapping
    for key, value in kept.items():
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as err:
            raise ValueError(f'Invalid function "{function_id}": "{key}" is not JSON-serializable: {err}') from None
    return FunctionEntry(
        function_id,
        handler,
        description,
        is_async(handler),
        _positional_arity(handler) >= 2,
        kept or None,
    )


def is_async(handler: Callable[..., Any]) -> bool:
    """Whether calling ``handler`` returns a coroutine (an ``async`` function or ``__call__``)."""
    if inspect.iscoroutinefunction(handler):
        return True
    call = getattr(handler, "__call__", None)  # noqa: B004 - objects with an async __call__
    return call is not None and inspect.iscoroutinefunction(call)


def _positional_arity(handler: Callable[..., Any]) -> int:
    """How many positional arguments ``handler`` takes (2 or more means ``(data, metadata)``)."""
    try:
        params = inspect.signature(handler).parameters.values()
    except (TypeError, ValueError):
        return 1
    count = 0
    for p in params:
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            return 2
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            count += 1
    return count


class Registry:
    """Trigger types and functions by id and trigger frames by trigger id, in registration order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._types: dict[str, ProvidedType] = {}
        self._functions: dict[str, FunctionEntry] = {}
        self._triggers: dict[str, dict[str, Any]] = {}

    def add_function(self, entry: FunctionEntry) -> None:
        """Adds ``entry``; raises ``ValueError`` when the id is already registered here."""
        with self._lock:
            if entry.id in self._functions:
                raise ValueError(f'Cannot register function "{entry.id}": already registered on this worker')
            self._functions[entry.id] = entry

    def remove_function(self, function_id: str) -> bool:
        """Removes a function; False when it was not registered."""
        with self._lock:
            return self._functions.pop(function_id, None) is not None

    def function(self, function_id: str) -> FunctionEntry | None:
        """The entry for ``function_id``, if registered."""
        with self._lock:
            return self._functions.get(function_id)

    def functions(self) -> list[FunctionEntry]:
        """A snapshot of all functions."""
        with self._lock:
            return list(self._functions.values())

    def add_trigger(self, frame: dict[str, Any]) -> None:
        """Keeps a ``registertrigger`` frame for replay."""
        with self._lock:
            self._triggers[frame["id"]] = frame

    def remove_trigger(self, trigger_id: str) -> dict[str, Any] | None:
        """Forgets a trigger; returns its frame when it was registered."""
        with self._lock:
            return self._triggers.pop(trigger_id, None)

    def triggers(self) -> list[dict[str, Any]]:
        """A snapshot of all trigger frames."""
        with self._lock:
            return list(self._triggers.values())

    def add_trigger_type(self, provided: ProvidedType) -> None:
        """Adds a provided trigger type; raises ``ValueError`` when its id is already provided here."""
        with self._lock:
            if provided.id in self._types:
                raise ValueError(f'Cannot register trigger type "{provided.id}": already registered on this worker')
            self._types[provided.id] = provided

    def remove_trigger_type(self, provided: ProvidedType) -> bool:
        """Removes ``provided`` (not a later type of the same id); False when it was not registered."""
        with self._lock:
            if self._types.get(provided.id) is not provided:
                return False
            del self._types[provided.id]
            return True

    def trigger_type(self, type_id: str) -> ProvidedType | None:
        """The provided trigger type ``type_id``, if any."""
        with self._lock:
            return self._types.get(type_id)

    def trigger_types(self) -> list[ProvidedType]:
        """A snapshot of all provided trigger types."""
        with self._lock:
            return list(self._types.values())
