"""pydantic-ai's streamed-text handling with thinking tags, as its model classes call it.

Each delta goes to handle_text_delta with the model profile's thinking tags,
as pydantic-ai's model classes pass them: the default pair, or the caller's
one pair (context `delimiters`), which replaces the default as it does for
pydantic-ai's users. The answer is the text of the text-part events it
yields, the reasoning channel the thinking-part events.
"""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from caller_pairs import one_pair  # noqa: E402,I001
from peerloop import serve  # noqa: E402,I001

from pydantic_ai._parts_manager import ModelResponsePartsManager  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
)
from pydantic_ai.models import ModelRequestParameters  # noqa: E402
from pydantic_ai.profiles import DEFAULT_THINKING_TAGS  # noqa: E402


class Stream:
    def __init__(self, context: dict) -> None:
        self.manager = ModelResponsePartsManager(model_request_parameters=ModelRequestParameters())
        self.tags = one_pair(context, DEFAULT_THINKING_TAGS)  # the profile's thinking_tags

    def feed(self, delta: str) -> tuple[str, str]:
        answer, reasoning = [], []
        for event in self.manager.handle_text_delta(vendor_part_id="content", content=delta,
                                                    thinking_tags=self.tags):
            if isinstance(event, PartStartEvent):
                if isinstance(event.part, TextPart):
                    answer.append(event.part.content)
                elif isinstance(event.part, ThinkingPart):
                    reasoning.append(event.part.content or "")
            elif isinstance(event, PartDeltaEvent):
                if isinstance(event.delta, TextPartDelta):
                    answer.append(event.delta.content_delta)
                elif isinstance(event.delta, ThinkingPartDelta):
                    reasoning.append(event.delta.content_delta or "")
        return "".join(reasoning), "".join(answer)

    def flush(self) -> tuple[str, str]:
        return "", ""  # the manager holds nothing back


serve(Stream, kind="stream-splitter", package="pydantic-ai-slim")
