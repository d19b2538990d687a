"""Canary tokens: reasoning text that can never be answer text.

Every generated block is filled with canaries, and no generated answer text can
contain one (answer stocks have no `qv` and no letter-digit mixes), so any
8-character window of a canary in a scrubber's output is a proven leak
(SPEC R-LEAK-1, section 11). Canary `i` is a fixed function of `i`: a shrunk
example keeps the same canaries, and two canaries of one stream never coincide.
"""

from __future__ import annotations

import re

#: RFC 4648 base32 in lower case: 32 plain ASCII symbols, none of them a tag character.
ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
_DIGITS = 8
_MODULUS = 32**_DIGITS
_MULTIPLIER = 0x5DEECE66D % _MODULUS | 1  # odd, so i -> i * M mod 32^8 is a bijection
PREFIX = "qv"
LENGTH = len(PREFIX) + _DIGITS
CANARY = re.compile(PREFIX + "[" + re.escape(ALPHABET) + "]{" + str(_DIGITS) + "}")


def canary(index: int) -> str:
    """The canary with number `index` (0 <= index < 32**8): 'qv' + 8 scrambled symbols."""
    if not 0 <= index < _MODULUS:
        raise ValueError(f"canary index out of range: {index}")
    value = (index * _MULTIPLIER + 0x3C6EF372FE) % _MODULUS
    symbols = []
    for _ in range(_DIGITS):
        value, digit = divmod(value, 32)
        symbols.append(ALPHABET[digit])
    return PREFIX + "".join(symbols)


def canary_run(first: int, count: int) -> str:
    """`count` consecutive canaries joined by spaces: one reasoning string."""
    return " ".join(canary(first + k) for k in range(count))


def find_canaries(text: str) -> list[str]:
    """Every whole canary in `text`, in order (a quick leak summary for reports)."""
    return CANARY.findall(text)
