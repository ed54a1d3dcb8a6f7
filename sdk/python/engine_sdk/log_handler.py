"""``EngineLogHandler``: records of Python's :mod:`logging` in the engine's log."""

from __future__ import annotations

import logging
import threading
from typing import Any

from .logger import Logger

_inside = threading.local()
"""``active``: this thread is sending a record (one the sending itself logs is not sent again)."""


def engine_level(levelno: int) -> str:
    """The engine's level for a :mod:`logging` level number."""
    if levelno >= logging.ERROR:
        return "error"
    if levelno >= logging.WARNING:
        return "warn"
    if levelno >= logging.INFO:
        return "info"
    return "debug"


class EngineLogHandler(logging.Handler):
    """A :class:`logging.Handler` that writes each record to the engine's log, as
    :class:`~engine_sdk.Logger` does: a fire-and-forget call of ``engine::log::<level>``
    (``CRITICAL`` and ``ERROR`` become ``error``, ``WARNING`` ``warn``, ``INFO`` ``info``,
    the rest ``debug``), with the function id and trace of the handler it was logged in.

    The message is the handler's formatting of the record (by default the message, then the
    traceback of ``exc_info``); ``data`` holds ``logger`` (the record's logger name) and the
    record's ``extra`` values given under the key ``data``. With no worker running, nothing is
    sent (the application's other handlers still print the record).

    Example::

        import logging
        from engine_sdk import EngineLogHandler

        logging.getLogger().addHandler(EngineLogHandler())
        logging.getLogger("orders").info("Order %s paid", 42, extra={"data": {"order_id": 42}})
    """

    def __init__(
        self, level: int | str = logging.NOTSET, *, worker: Any = None, service_name: str | None = None
    ) -> None:
        """``worker`` and ``service_name`` as for :class:`~engine_sdk.Logger`."""
        super().__init__(level)
        self._logger = Logger(service_name, worker=worker)

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(_inside, "active", False):
            return
        _inside.active = True
        try:
            data: dict[str, Any] = {"logger": record.name}
            extra = getattr(record, "data", None)
            if extra is not None:
                data["data"] = extra
            self._logger._send(engine_level(record.levelno), self.format(record), data)  # noqa: SLF001
        except Exception:  # noqa: BLE001 - as every logging handler: reported, never raised
            self.handleError(record)
        finally:
            _inside.active = False
