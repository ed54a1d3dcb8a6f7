"""The error a failed call surfaces as."""

from __future__ import annotations

from typing import Any


class EngineError(Exception):
    """A call failed: the engine or the called function answered with an error,
    or the call failed locally.

    ``code`` is the protocol's error code, for example ``function_not_found``,
    ``invocation_failed``, ``invocation_stopped``, ``TIMEOUT`` (no answer within
    the time-out) or ``shutdown`` (the worker shut down first).

    A handler may raise an ``EngineError`` (or any exception with a string
    ``code`` attribute) to answer its caller with that code instead of
    ``invocation_failed``.

    Example::

        try:
            worker.trigger({"function_id": "orders::get", "payload": {"id": 42}})
        except EngineError as err:
            print(err.code, err.message)
    """

    code: str
    message: str
    stacktrace: str | None
    function_id: str | None

    def __init__(
        self,
        code: str,
        message: str,
        *,
        stacktrace: str | None = None,
        function_id: str | None = None,
    ) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.stacktrace = stacktrace
        self.function_id = function_id

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def to_body(self) -> dict[str, Any]:
        """The wire ``ErrorBody`` ``{code, message, stacktrace?}``."""
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.stacktrace:
            body["stacktrace"] = self.stacktrace
        return body


def error_from_body(error: Any, function_id: str | None = None) -> EngineError:
    """Turns the ``error`` of an ``invocationresult`` into an :class:`EngineError`.

    A well-formed ``{code, message, stacktrace?}`` keeps its code; anything else
    becomes code ``UNKNOWN`` with the value as text (as the reference SDK does).
    """
    if (
        isinstance(error, dict)
        and isinstance(error.get("code"), str)
        and isinstance(error.get("message"), str)
    ):
        stack = error.get("stacktrace")
        return EngineError(
            error["code"],
            error["message"],
            stacktrace=stack if isinstance(stack, str) else None,
            function_id=function_id,
        )
    if isinstance(error, str):
        text = error
    else:
        import json

        try:
            text = json.dumps(error)
        except (TypeError, ValueError):
            text = repr(error)
    return EngineError("UNKNOWN", text, function_id=function_id)
