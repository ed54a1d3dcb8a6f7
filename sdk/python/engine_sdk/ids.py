"""Function ids: ``<namespace>::<name>``, two or more parts separated by ``::``,
each part letters, digits, ``-`` and ``_``."""

from __future__ import annotations

import re
from typing import Any

_FUNCTION_ID = re.compile(r"[A-Za-z0-9_-]+(?:::[A-Za-z0-9_-]+)+")
_MAX_LENGTH = 256

FUNCTION_ID_RULE = (
    'a function id is two or more parts separated by "::", '
    "each part letters, digits, '-' and '_'"
)


def check_function_id(function_id: Any) -> None:
    """Raises ``ValueError`` naming the id when it is not a valid function id."""
    if not isinstance(function_id, str):
        raise ValueError(
            f"Invalid function id {function_id!r}: expected a string, got {type(function_id).__name__}"
        )
    if len(function_id) > _MAX_LENGTH:
        raise ValueError(
            f'Invalid function id "{function_id[:64]}…": longer than {_MAX_LENGTH} characters'
        )
    if not _FUNCTION_ID.fullmatch(function_id):
        raise ValueError(f'Invalid function id "{function_id}": {FUNCTION_ID_RULE}')


def check_target_id(function_id: Any, field: str) -> None:
    """Raises ``ValueError`` unless ``function_id`` (found in ``field``) is a non-empty string.

    Targets of calls and triggers are only checked loosely: the engine decides
    whether they exist, and its own builtins use longer ids.
    """
    if not isinstance(function_id, str) or not function_id:
        raise ValueError(f'Invalid "{field}" {function_id!r}: expected a non-empty function id')
