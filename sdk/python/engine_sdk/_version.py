"""The SDK's version, reported to the engine."""

__version__ = "0.1.0"
