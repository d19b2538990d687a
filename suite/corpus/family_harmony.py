"""harmony-headers: one harmony message per header shape (SPEC R-HARMONY-1/2).

Every role, channel, recipient position and content type a header can combine,
with the message after it. The expected output follows from the parts the
header was built from (assistant, final or commentary, no recipient: shown;
anything else: hidden), never from reading the text. Each case puts an answer
before and after the message, so a scrubber that hides too much fails too.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping

from scrubcheck.corpus.family_base import Family, Generated, params_schema
from scrubcheck.corpus.fields import integer
from scrubcheck.corpus.prose import TOPICS
from scrubcheck.corpus.streams import Stream, slug
from scrubcheck.corpus.templates import random_cuts
from scrubcheck.model import Context

ROLES = ("assistant", "user", "system", "developer", "functions.lookup to=assistant")
CHANNELS = ("final", "commentary", "analysis", "summary", None)
RECIPIENTS = (None, "functions.lookup", "browser.search", "python")
#: where the recipient goes: after the channel (the guide's usual form) or in the role part
PLACES = ("channel", "role")
TYPES = ("", " <|constrain|>json", " json")
ENDS = ("<|end|>", "<|call|>", "<|return|>")


def build(params: Mapping[str, object]) -> Iterator[Generated]:
    seed = integer(params, "seed", 1)
    for opener in ("start", "channel"):
        for role in ROLES if opener == "start" else ("assistant",):
            for channel in CHANNELS if opener == "start" else CHANNELS[:-1]:
                for recipient in RECIPIENTS:
                    for place in PLACES if recipient and opener == "start" else ("channel",):
                        yield _case(seed, opener, role, channel, recipient, place)


def _header(opener: str, role: str, channel: str | None, recipient: str | None,
            place: str, content_type: str) -> str:
    header = "<|start|>" + role if opener == "start" else ""
    if recipient and place == "role":
        header += f" to={recipient}"
    if channel is not None:
        header += "<|channel|>" + channel
    if recipient and place == "channel":
        header += f" to={recipient}"
    return header + content_type + "<|message|>"


def _case(seed: int, opener: str, role: str, channel: str | None, recipient: str | None,
          place: str) -> Generated:
    key = "-".join(slug(p) for p in (opener, role, channel or "no-channel",
                                     recipient or "no-recipient", place))
    rng = random.Random(f"{seed}:{key}")
    topic, other = rng.sample(TOPICS, 2)
    visible = role == "assistant" and recipient is None and channel in ("final", "commentary")
    header = _header(opener, role, channel, recipient, place, rng.choice(TYPES))
    s = Stream().answer(f"{topic.lead} ").tag(header)
    if visible:
        s.answer(other.lead).tag(rng.choice(ENDS))
    else:
        s.reasoning(other.reasoning).tag(rng.choice(ENDS))
    s.answer(f" {topic.tail}")
    shown = "answer text" if visible else "hidden"
    return Generated(
        suffix=key,
        detail=f"role {role}, channel {channel}, recipient {recipient} ({place}): {shown}",
        deltas=random_cuts(s.text, rng, 4),
        reasoning=s.reasoning_strings,
        visible=s.visible,
        context=Context(features=("harmony",)),
    )


FAMILY = Family(
    name="harmony-headers",
    summary="harmony header: opener x role x channel x recipient x its place",
    params_schema=params_schema({"seed": {"type": "integer"}}),
    build=build,
)
