"""``Logger``: log records that reach the engine's log, tagged with the worker,
the function and the trace they were written in."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

from .context import current_scope, parse_traceparent

_LEVELS = ("debug", "info", "warn", "error")


class Logger:
    """Writes to the engine's log.

    Each call becomes a fire-and-forget call of ``engine::log::<level>`` with
    ``{message, data?, function_id?, trace_id?, span_id?, service_name?}``.
    Inside a handler the function id and trace come from the invocation;
    the engine adds the worker. With no worker running, the record is printed
    instead (``info``/``debug`` to stdout, ``warn``/``error`` to stderr).

    Example::

        logger = Logger()

        def add(payload):
            logger.info("math::add called", {"a": payload["a"], "b": payload["b"]})
            return {"c": payload["a"] + payload["b"]}
    """

    def __init__(
        self,
        service_name: str | None = None,
        *,
        worker: Any = None,
        trace_id: str | None = None,
        span_id: str | None = None,
    ) -> None:
        """``worker`` defaults to the worker of the current invocation, else the
        most recently started one. ``trace_id``/``span_id`` override the ones of
        the current invocation."""
        self._service_name = service_name
        self._worker = worker
        self._trace_id = trace_id
        self._span_id = span_id

    def debug(self, message: str, data: Any = None) -> None:
        """Logs at debug level."""
        self._emit("debug", message, data)

    def info(self, message: str, data: Any = None) -> None:
        """Logs at info level."""
        self._emit("info", message, data)

    def warn(self, message: str, data: Any = None) -> None:
        """Logs at warn level."""
        self._emit("warn", message, data)

    def warning(self, message: str, data: Any = None) -> None:
        """Same as :meth:`warn`, spelled as in :mod:`logging`."""
        self._emit("warn", message, data)

    def error(self, message: str, data: Any = None) -> None:
        """Logs at error level."""
        self._emit("error", message, data)

    def _emit(self, level: str, message: Any, data: Any) -> None:
        payload = self._send(level, message, data)
        if payload is not None:
            _print(level, payload)

    def _send(self, level: str, message: Any, data: Any) -> dict[str, Any] | None:
        """Sends the record through a running worker; returns it when there is none."""
        scope = current_scope()
        payload: dict[str, Any] = {"message": message if isinstance(message, str) else _text(message)}
        if data is not None:
            payload["data"] = _jsonable(data)
        if scope is not None:
            payload["function_id"] = scope.function_id
        trace = parse_traceparent(scope.traceparent) if scope is not None else None
        trace_id = self._trace_id or (trace.trace_id if trace else None)
        span_id = self._span_id or (trace.span_id if trace else None)
        if trace_id:
            payload["trace_id"] = trace_id
        if span_id:
            payload["span_id"] = span_id
        if self._service_name:
            payload["service_name"] = self._service_name
        worker = self._worker or (scope.worker if scope is not None else None) or _default_worker()
        if worker is not None and worker.running:
            worker._log(level, payload)
            return None
        return payload


def _default_worker() -> Any:
    from .worker import default_worker

    return default_worker()


MAX_DATA_DEPTH = 100
"""Nesting of a record's ``data`` kept; deeper values become a marker (the engine refuses frames
nested more than 512 levels deep, and the encoder's recursion stops near 1000)."""


def _jsonable(data: Any) -> Any:
    """``data`` as plain JSON values; anything JSON cannot hold becomes its ``str``, and NaN and
    the infinities become ``None`` (as ``JSON.stringify`` writes them). Never raises: a key JSON
    cannot hold becomes its ``str``, a value that contains itself ``"[Circular]"``."""
    try:
        return json.loads(json.dumps(data, default=str), parse_constant=lambda constant: None)
    except (TypeError, ValueError, RecursionError):
        return _plain(data, set(), 0)


def _plain(value: Any, path: set[int], depth: int) -> Any:
    """The slow way of :func:`_jsonable`, for values ``json.dumps`` refuses."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, (dict, list, tuple)):
        return _text(value)
    if id(value) in path:
        return "[Circular]"
    if depth >= MAX_DATA_DEPTH:
        return "[Nested too deeply]"
    path.add(id(value))
    try:
        if isinstance(value, dict):
            return {_key(k): _plain(v, path, depth + 1) for k, v in value.items()}
        return [_plain(v, path, depth + 1) for v in value]
    finally:
        path.discard(id(value))


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)  # as json.dumps writes such keys: "1", "true", "null"
    return _text(key)


def _text(value: Any) -> str:
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - a log call never raises
        return f"<{type(value).__name__}>"


def _print(level: str, payload: dict[str, Any]) -> None:
    prefix = f"[{payload['service_name']}] " if "service_name" in payload else ""
    line = f"[{level.upper()}] {prefix}{payload['message']}"
    if "data" in payload:
        line += " " + json.dumps(payload["data"])
    stream = sys.stderr if level in ("warn", "error") else sys.stdout
    try:
        print(line, file=stream, flush=True)
    except UnicodeEncodeError:
        # A lone surrogate, or text beyond an ASCII terminal's reach: escaped rather than raised.
        encoding = getattr(stream, "encoding", None) or "utf-8"
        print(line.encode(encoding, "backslashreplace").decode(encoding), file=stream, flush=True)
