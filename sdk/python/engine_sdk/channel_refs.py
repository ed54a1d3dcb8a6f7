"""Data-channel refs: their shape, their URL, and finding them in a payload.

A ref is the JSON object ``{"channel_id", "access_key", "direction"}`` that
``engine::channels::create`` answers with (one per end) and that engine-http
puts in every HTTP handler's request (``request_body``, ``response``). Whoever
holds a ref may open that end of the channel, once, as a WebSocket on the
engine's port: ``/ws/channels/<channel_id>?key=<access_key>&dir=read|write``.
"""

from __future__ import annotations

from typing import Any, Callable, TypedDict
from urllib.parse import quote

DIRECTIONS = ("read", "write")


class ChannelRef(TypedDict):
    """One end of a data channel, as it travels in payloads."""

    channel_id: str
    access_key: str
    direction: str
    """``"read"`` or ``"write"``."""


def is_channel_ref(value: Any) -> bool:
    """Whether ``value`` has a ref's shape: a dict whose ``channel_id`` and ``access_key`` are strings
    and whose ``direction`` is ``"read"`` or ``"write"`` (other keys are allowed, as the npm SDK allows them).

    Example::

        assert is_channel_ref({"channel_id": "c1", "access_key": "k1", "direction": "read"})
        assert not is_channel_ref({"channel_id": "c1", "direction": "read"})
    """
    return (
        isinstance(value, dict)
        and isinstance(value.get("channel_id"), str)
        and isinstance(value.get("access_key"), str)
        and value.get("direction") in DIRECTIONS
    )


def replace_channel_refs(data: Any, open_end: Callable[[ChannelRef], Any]) -> Any:
    """``data`` with every ref in it (at any depth of dicts and lists) replaced by ``open_end(ref)``.

    Containers holding a ref are copied; everything else is returned as it is.
    This is what a worker does to a call's payload before its handler runs.

    Example::

        data = {"files": [{"channel_id": "c1", "access_key": "k1", "direction": "read"}], "n": 1}
        replace_channel_refs(data, lambda ref: ref["channel_id"])  # {"files": ["c1"], "n": 1}
    """
    if is_channel_ref(data):
        channel_id, access_key, direction = data["channel_id"], data["access_key"], data["direction"]
        return open_end(ChannelRef(channel_id=channel_id, access_key=access_key, direction=direction))
    if isinstance(data, list):
        items = [replace_channel_refs(item, open_end) for item in data]
        return items if any(a is not b for a, b in zip(items, data)) else data
    if isinstance(data, dict):
        values = {key: replace_channel_refs(value, open_end) for key, value in data.items()}
        return values if any(values[key] is not value for key, value in data.items()) else data
    return data


def channel_url(engine_url: str, ref: ChannelRef) -> str:
    """The WebSocket URL of ``ref``'s end on the engine at ``engine_url`` (the worker's own URL).

    Example::

        channel_url("ws://localhost:49134/", {"channel_id": "c1", "access_key": "k+1", "direction": "write"})
        # 'ws://localhost:49134/ws/channels/c1?key=k%2B1&dir=write'
    """
    base = engine_url.split("?", 1)[0].rstrip("/")
    channel_id = quote(ref["channel_id"], safe="")
    key = quote(ref["access_key"], safe="")
    return f"{base}/ws/channels/{channel_id}?key={key}&dir={ref['direction']}"
