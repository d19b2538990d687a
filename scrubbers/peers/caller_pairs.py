"""The caller's delimiters (SPEC R-CUSTOM-1) as a one-pair package takes them.

Standalone (standard library only): adapter programs run in the peer's own
environment and load it from SCRUBCHECK_PEERLOOP_DIR, as they load peerloop.
The manifest's [delimiters] table already keeps streams with more than the
package can take away from the peer (they are UNSUPPORTED); a context that
slips past it anyway is refused here, loudly, rather than run with a pair
silently dropped.
"""

from __future__ import annotations


def one_pair(context: dict, default: tuple[str, str]) -> tuple[str, str]:
    """The caller's single (open, close) pair, or the package's `default` when the
    context configures none. Raises ValueError for markers or several pairs."""
    delimiters = context.get("delimiters") or ()
    pairs = [(d["open"], d["close"]) for d in delimiters if "open" in d]
    if len(pairs) != len(delimiters) or len(pairs) > 1:
        raise ValueError(f"this package takes one caller pair, not {delimiters!r}")
    return pairs[0] if pairs else default
