"""Trigger types a worker provides (protocol.md §13): the engine hands the
provider every trigger bound to its type with ``registertrigger``, the provider
answers ``triggerregistrationresult``, and later fires the trigger's function
with an ordinary call.

:func:`make_provided_type` runs in user threads; :class:`Provider` runs on the
worker's event loop only.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Mapping

from .dispatch import exception_code, exception_text
from .registry import Registry, is_async

log = logging.getLogger("engine_sdk")

_METHODS = ("register_trigger", "unregister_trigger")


@dataclass(frozen=True)
class TriggerConfig:
    """A trigger bound to a type this worker provides, as its handler sees it."""

    id: str
    """The trigger id (chosen by the worker that registered the trigger)."""
    type: str
    """The trigger type id."""
    function_id: str
    """The function to call when the trigger fires."""
    config: Any
    """The trigger's configuration, as the registering worker gave it."""
    metadata: Any = None
    """The trigger's metadata, or ``None``."""


@dataclass(frozen=True)
class ProvidedType:
    """A trigger type this worker provides and the handler methods that serve it."""

    id: str
    description: str
    register: Callable[[TriggerConfig], Any]
    unregister: Callable[[TriggerConfig], Any]

    def frame(self) -> dict[str, Any]:
        """The ``registertriggertype`` frame."""
        return {"type": "registertriggertype", "id": self.id, "description": self.description}


def make_provided_type(trigger_type: Any, handler: Any) -> ProvidedType:
    """Checks ``{"id", "description"}`` and the handler; raises ``ValueError`` or
    ``TypeError`` naming the type and the problem."""
    if not isinstance(trigger_type, Mapping):
        raise ValueError(
            f'Invalid trigger type: expected a dict {{"id", "description"}}, got {type(trigger_type).__name__}'
        )
    type_id = trigger_type.get("id")
    if not isinstance(type_id, str) or not type_id.strip():
        raise ValueError(f'Invalid trigger type "id" {type_id!r}: expected a non-empty string such as "ticker"')
    description = trigger_type.get("description", "")
    if not isinstance(description, str):
        raise ValueError(
            f'Invalid "description" of trigger type "{type_id}": expected a string, got {type(description).__name__}'
        )
    methods = []
    for name in _METHODS:
        method = handler.get(name) if isinstance(handler, Mapping) else getattr(handler, name, None)
        if not callable(method):
            raise TypeError(
                f'Cannot register trigger type "{type_id}": the handler has no callable "{name}" '
                f"(got {type(handler).__name__}); it needs register_trigger(trigger) and unregister_trigger(trigger)"
            )
        methods.append(method)
    return ProvidedType(type_id, description, methods[0], methods[1])


class Provider:
    """Answers the engine for the trigger types in ``registry``.

    It remembers the triggers it accepted, so ``unregister_trigger`` gets the
    whole trigger, and runs the handler calls for one trigger id one after the
    other (an ``unregistertrigger`` never overtakes the ``registertrigger``
    still being decided).
    """

    def __init__(self, registry: Registry, executor: Executor) -> None:
        self._registry = registry
        self._executor = executor
        self._held: dict[str, tuple[ProvidedType, TriggerConfig]] = {}
        self._steps: dict[str, asyncio.Task[Any]] = {}

    async def register(self, frame: Mapping[str, Any]) -> dict[str, Any]:
        """Handles an engine ``registertrigger``; returns the ``triggerregistrationresult`` to send."""
        trigger = TriggerConfig(
            str(frame.get("id")),
            str(frame.get("trigger_type")),
            str(frame.get("function_id", "")),
            frame.get("config"),
            frame.get("metadata"),
        )
        return await self._then(trigger.id, lambda: self._register(trigger))

    async def unregister(self, frame: Mapping[str, Any]) -> None:
        """Handles an engine ``unregistertrigger`` (no answer is sent)."""
        trigger_id = str(frame.get("id"))
        await self._then(trigger_id, lambda: self._release(trigger_id))

    async def release(self, type_id: str | None = None) -> None:
        """Calls ``unregister_trigger`` for every trigger held (of ``type_id`` only, if given),
        including those still being registered: the engine no longer counts on them."""
        ids = [i for i, (p, _) in self._held.items() if type_id is None or p.id == type_id]
        ids += [i for i in self._steps if i not in ids and type_id is None]
        await asyncio.gather(*(self._then(i, lambda i=i: self._release(i, type_id)) for i in ids))

    def _then(self, trigger_id: str, step: Callable[[], Awaitable[Any]]) -> asyncio.Task[Any]:
        previous = self._steps.get(trigger_id)

        async def run() -> Any:
            if previous is not None:
                await asyncio.wait([previous])
            return await step()

        task = asyncio.get_running_loop().create_task(run())
        self._steps[trigger_id] = task

        def forget(done: asyncio.Task[Any]) -> None:
            if self._steps.get(trigger_id) is done:
                del self._steps[trigger_id]

        task.add_done_callback(forget)
        return task

    async def _register(self, trigger: TriggerConfig) -> dict[str, Any]:
        answer: dict[str, Any] = {
            "type": "triggerregistrationresult",
            "id": trigger.id,
            "trigger_type": trigger.type,
            "function_id": trigger.function_id,
        }
        where = f'Cannot register trigger "{trigger.id}" ({trigger.type}) for "{trigger.function_id}"'
        provided = self._registry.trigger_type(trigger.type)
        if provided is None:
            answer["error"] = {
                "code": "trigger_type_not_found",
                "message": f'{where}: this worker does not provide trigger type "{trigger.type}"',
            }
            return answer
        held = self._held.get(trigger.id)
        if held is not None:
            if held == (provided, trigger):
                return answer  # the same trigger again: it is already running
            await self._release(trigger.id)
        try:
            await _call(provided.register, trigger, self._executor)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # noqa: BLE001 - any failure is a refusal
            answer["error"] = {
                "code": exception_code(err) or "trigger_registration_failed",
                "message": f"{where}: {exception_text(err)}",
            }
            return answer
        self._held[trigger.id] = (provided, trigger)
        if self._registry.trigger_type(trigger.type) is not provided:
            # The type was unregistered while register_trigger ran: undo it.
            await self._release(trigger.id)
            answer["error"] = {
                "code": "trigger_type_not_found",
                "message": f'{where}: trigger type "{trigger.type}" was unregistered meanwhile',
            }
        return answer

    async def _release(self, trigger_id: str, type_id: str | None = None) -> None:
        held = self._held.get(trigger_id)
        if held is None or (type_id is not None and held[0].id != type_id):
            return  # never accepted here (or refused): nothing to undo
        del self._held[trigger_id]
        provided, trigger = held
        try:
            await _call(provided.unregister, trigger, self._executor)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # noqa: BLE001 - there is no one to answer: say it
            log.error(
                'unregister_trigger of trigger type "%s" failed for trigger "%s" (%s): %s',
                provided.id,
                trigger.id,
                trigger.function_id,
                exception_text(err),
            )


async def _call(method: Callable[[TriggerConfig], Any], trigger: TriggerConfig, executor: Executor) -> None:
    """Runs a handler method: ``async`` ones on the loop, sync ones in the thread pool."""
    if is_async(method):
        result = method(trigger)
    else:
        result = await asyncio.get_running_loop().run_in_executor(executor, method, trigger)
    if inspect.isawaitable(result):
        await result
