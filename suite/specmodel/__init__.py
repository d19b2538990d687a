"""An independent, batch-only reading of SPEC.md: the harness's yardstick.

`read_stream(text, context)` takes a whole input and its context and gives what
SPEC says comes out: the visible text, the places where something was removed
(for R-WS-1) and every tag that stood outside code (for R-TAG-1).
`decided_ends(text, context)` gives the output due after each one-character feed
(the hold-back yardstick of R-STREAM-1/2). It shares only
the tag tables (`scrubcheck.vocabulary`, data) with the reference scrubber, so a
test of the reference's output is not judged by the reference's own scanner.
"""

from scrubcheck.specmodel.decided import decided_ends
from scrubcheck.specmodel.reading import FoundTag, Reading, read_stream
from scrubcheck.specmodel.tags import tags_outside_code

__all__ = ["FoundTag", "Reading", "decided_ends", "read_stream", "tags_outside_code"]
