"""Python SDK for engine workers: standard library only, Python 3.10+.

Example::

    from engine_sdk import register_worker, InitOptions, Logger

    worker = register_worker(options=InitOptions(worker_name="math-worker"))
    logger = Logger()

    def add(payload):
        logger.info("math::add called", payload)
        return {"c": payload.get("a", 0) + payload.get("b", 0)}

    worker.register_function("math::add", add)
    worker.run_forever()
"""

from ._version import __version__
from .channel_end import ChannelError
from .channel_refs import ChannelRef, is_channel_ref
from .channels import Channel, ChannelReader, ChannelWriter
from .context import InvocationScope, TraceParent, current_scope, parse_traceparent
from .errors import EngineError
from .frames import TriggerAction
from .http_stream import HttpStream
from .log_handler import EngineLogHandler
from .logger import Logger
from .options import DEFAULT_ENGINE_URL, InitOptions
from .providers import TriggerConfig
from .worker import FunctionRef, Trigger, TriggerTypeRef, Worker, register_worker

__all__ = [
    "Channel",
    "ChannelError",
    "ChannelReader",
    "ChannelRef",
    "ChannelWriter",
    "DEFAULT_ENGINE_URL",
    "EngineError",
    "EngineLogHandler",
    "FunctionRef",
    "HttpStream",
    "InitOptions",
    "InvocationScope",
    "Logger",
    "TraceParent",
    "Trigger",
    "TriggerAction",
    "TriggerConfig",
    "TriggerTypeRef",
    "Worker",
    "__version__",
    "current_scope",
    "is_channel_ref",
    "parse_traceparent",
    "register_worker",
]
