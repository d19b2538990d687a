"""Naming the bugs: a run's failures explained as a few root causes.

Theory of operation. A scrubber with one bug fails hundreds of scenarios, under many
checks. Each failure is reproduced (`trial`) and shrunk (`shrink`) to a smallest stream
that still fails the same check with the same first wrong decision, rerun by the same
conductor that judged it (`runner.run_scenario`). On that stream the implementation's
output is read against the SPEC model piece by piece (`pieces`, `difference`): the
first decision it did not follow (a delimiter shown, reasoning shown, answer text
dropped, text held back, a second pass that changes it, ...), about which piece, under
which delta boundaries and context. Abstracted by asking the implementation whether a
variation matters (`signature`), that decision is the bug's signature; failures with
one signature are one root cause, whichever checks saw them (`causes`). A whole run is
explained in isolated workers, bounded in time (`conduct`), and said in words, in
Markdown and as ready-to-file bug reports (`render`, `write`).

What counts as one bug and what as two is set out in SPEC.md's section on how streams
are judged ("What one bug is").
"""

from scrubcheck.explain.causes import RootCause
from scrubcheck.explain.conduct import Explanation, explain_run
from scrubcheck.explain.write import write_explanation

__all__ = ["Explanation", "RootCause", "explain_run", "write_explanation"]
