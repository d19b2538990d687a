"""Realistic answer and reasoning text for generated scenarios, built deterministically.

Answer and reasoning come from separate word stocks, so that a reasoning string
never shares an 8-character window with an expected output (SPEC section 11):
the answer side is plain declarative English, the reasoning side is terse
note-taking with its own words and punctuation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    """One short exchange: the answer's lead and tail sentences and the model's reasoning."""

    lead: str
    tail: str
    reasoning: str


TOPICS: tuple[Topic, ...] = (
    Topic("Paris is the capital of France.", "It has held that role since the tenth century.",
          "user wants the French seat of government; recall Capetian kings, keep it brief"),
    Topic("Bake the loaf at 220 degrees for 35 minutes.", "Let it cool before slicing.",
          "hmm, bread question; hydration ~70%, oven temp typical for sourdough"),
    Topic("Your parcel left Rotterdam this morning.", "Delivery is expected on Friday.",
          "tracking notes: depot scan happened Tuesday night, so ETA +3 days"),
    Topic("The function returns None when the cache is empty.",
          "Otherwise it gives the newest entry.",
          "wait, docstring says KeyError maybe? re-read impl: no, falls through"),
    Topic("A tablespoon of honey weighs about 21 grams.", "That is a little under an ounce.",
          "convert: density approx 1.42 g/ml times 15 ml gives ~21.3"),
    Topic("The train to Leeds leaves from platform six.", "Buy the ticket before boarding.",
          "timetable lookup: departures each hour at :10, track varies"),
    Topic("Restart the router and reconnect the laptop.",
          "The network should come back within a minute.",
          "likely DHCP lease glitch; suggest power cycle first, escalate later"),
    Topic("Kilimanjaro rises to 5,895 metres.", "It is the highest mountain in Africa.",
          "elevation figure from Uhuru Peak survey; double-check 5895 m"),
    Topic("The invoice total is 418.50 euros.", "That amount already includes VAT.",
          "sum items: 350 + 18.5 = 368.5, apply 19%... hmm recompute, use 418.5"),
    Topic("Plants turn light, water and carbon dioxide into sugar.",
          "Oxygen is released as a by-product.",
          "basic biology recap; keep to one line, skip Calvin cycle jargon"),
    Topic("An interactive rebase lets you squash the last three commits.",
          "Pick the first one and mark the others as squash.",
          "they want git squash; suggest -i flag with HEAD~3 selecting three"),
    Topic("The lease renews automatically each year.", "Give sixty days of notice to end it.",
          "contract clause 12(b) covers renewal; termination period = 60d"),
)

# Word stocks for long prose. Answer words are ordinary English; reasoning words
# are marked by an uncommon vocabulary and the "::" / "=>" punctuation of notes.
_ANSWER_SUBJECTS = (
    "The parser", "This module", "The scheduler", "Each worker", "The cache layer",
    "A request", "The migration", "Our test suite", "The client library", "The index",
)
_ANSWER_VERBS = (
    "reads", "writes", "validates", "compresses", "forwards", "stores", "rejects",
    "retries", "records", "returns",
)
_ANSWER_OBJECTS = (
    "every incoming record", "the newest snapshot", "a sorted list of keys",
    "the configuration file", "each pending job", "the audit trail", "a compact summary",
    "the previous version", "all open connections", "the shared buffer",
)
_ANSWER_ENDINGS = (
    "before the deadline", "in a single pass", "without blocking", "at startup",
    "once per minute", "when the queue drains", "after a successful commit",
    "during the nightly run", "on every retry", "for each tenant",
)
_CODE_SPANS = (
    "`load_config()`", "`--dry-run`", "`max_workers = 8`", "`git status`", "`Queue.put`",
    "`os.replace`", "`retry(3)`", "`None`", "`SELECT count(*)`", "`fsync`",
)
_LITERAL_TAG_SPANS = ("`<think>`", "`</think>`", "`<reasoning>`", "`</thinking>`")

_NOTE_OPENERS = (
    "hmm::", "ok =>", "recheck::", "wait =>", "todo::", "idea =>", "caveat::", "verify =>",
)
_NOTE_WORDS = (
    "zq-bound", "invariant#", "lemma", "monotone", "epsilon", "fixpoint", "sigma",
    "delta-k", "quorum", "xor-trick", "amortised", "pivot", "kappa", "vertex",
    "subgoal", "witness", "conjecture", "mod-p", "residue", "gamma",
)


def answer_sentence(rng: random.Random, with_code: bool = False,
                    literal_tag: bool = False) -> str:
    """One declarative sentence, optionally mentioning a code span (maybe a literal tag)."""
    subject = rng.choice(_ANSWER_SUBJECTS)
    verb = rng.choice(_ANSWER_VERBS)
    obj = rng.choice(_ANSWER_OBJECTS)
    ending = rng.choice(_ANSWER_ENDINGS)
    sentence = f"{subject} {verb} {obj} {ending}"
    if literal_tag:
        sentence += f", and the marker {rng.choice(_LITERAL_TAG_SPANS)} stays in the text"
    elif with_code:
        sentence += f" using {rng.choice(_CODE_SPANS)}"
    return sentence + "."


def reasoning_note(rng: random.Random, serial: int) -> str:
    """One note-style reasoning line, made unique by its serial number."""
    words = " ".join(rng.choice(_NOTE_WORDS) for _ in range(rng.randint(4, 9)))
    return f"{rng.choice(_NOTE_OPENERS)} {words} [n{serial:06d}]"
