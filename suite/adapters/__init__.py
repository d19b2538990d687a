"""Adapters: drive any scrubber shape (stream object, batch function, splitter)
through one `Adapter.open(context) -> Session` interface.

    from scrubcheck.adapters import load_adapter
    adapter = load_adapter("agent.think_scrubber:StreamingThinkScrubber")
    session = adapter.open(scenario.context)
"""

from scrubcheck.adapters.base import Adapter, Session
from scrubcheck.adapters.context import CONTEXT_KEYS
from scrubcheck.adapters.load import load_adapter
from scrubcheck.adapters.resolve import AdapterError, registered_names
from scrubcheck.adapters.splitter import split_channels

__all__ = [
    "CONTEXT_KEYS",
    "Adapter",
    "AdapterError",
    "Session",
    "load_adapter",
    "registered_names",
    "split_channels",
]
