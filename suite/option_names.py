"""How the caller spells the options that scrubcheck's messages advise.

The runner and the checks serve the command line and the pytest plugin alike, and
the plugin's options have names of their own (`--scrubcheck-timeout`). A message
that tells the user what to change ("raise --timeout") must name an option they
can pass where they are, so the caller hands its spelling down with the run.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OptionNames:
    """The options a message may name, as the entry point that started the run spells them."""

    timeout: str = "--timeout"  # the wall-clock seconds per scenario
    memory_limit: str = "--memory-limit"  # the memory each worker may allocate
    skip_linear: str = "--no-linear"  # what leaves out the linear-time check


#: Every `scrubcheck` command (the names of `scrubcheck.commands.options`).
COMMAND_LINE = OptionNames()
