"""R-ROBUST-2: time is linear in the stream length, whatever the delta sizes.

Run once per scrubber. A realistic stream of n and of 8n characters is fed in
one-character and in 16-character deltas; the check fails when either time
ratio exceeds 8 x 1.5. It is a ratio measured in the same process, not a
wall-clock limit, and it uses CPU time so parallel workers do not skew it. n
grows until the short run takes long enough to measure; a run that is clearly
quadratic is abandoned early instead of hanging the suite.

The measurement also fits a wall-clock budget (the run's per-scenario
`--timeout`): the number of rounds is sized to what is left of it, and when
even one round no longer fits, the check stops and says it was not measured
(never a pass it did not measure). A conclusive failure ends the measurement:
the other delta size cannot turn it into a pass.
"""

from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass, field

from scrubcheck.adapters import Adapter
from scrubcheck.checks.names import Check
from scrubcheck.evidence import Evidence
from scrubcheck.model import Context
from scrubcheck.option_names import COMMAND_LINE, OptionNames
from scrubcheck.vocabulary import FEATURES, feature_sample

GROWTH = 8
LIMIT = GROWTH * 1.5
ABANDON = GROWTH * 4  # stop an 8n run at 32x: half of what a quadratic scrubber takes
DELTA_SIZES = (1, 16)
MIN_SECONDS = 0.03
ROUNDS = 3
RETRIES = 2
START_N = 2048
MIN_N = 256  # n shrinks this far for a slow scrubber under a tight budget
MAX_N = 131072  # 8n = 1 Mi characters, the size SPEC R-ROBUST-2 names
CHECK_EVERY = 64  # feeds between two looks at the clocks (abandon, wall-clock budget)
# A round is one 8n run and eight n runs: 16 times a short run when linear, planned
# with a quarter more for noise.
ROUND_COST = 2 * GROWTH * 1.25
# n is small enough when the budget holds a round, and also an 8n run that is abandoned
# (a quadratic scrubber's): otherwise the clock would cut that run before it is judged,
# and a scrubber that is clearly not linear would come out "not measured".
PLAN = max(ROUND_COST, ABANDON)

_PIECES = (
    "Sure, here is the summary you asked for. ",
    "<think>The user wants a summary; check the dates first and keep it short.</think>",
    "The meeting moved to Tuesday. Write `<think>` literally in a code span like this.\n",
    "```python\nprint('<think> stays literal in fences')\n```\n",
    "<thinking>Second pass: verify the totals before answering, then reply.</thinking>",
    "Totals: 42 items, 17 pending.\n",
    "Prose with markup <b>bold</b>, a stray < sign, and CRLF\r\nline endings. ",
    "<THINK>upper-case reasoning about whether to mention the refund policy</THINK>",
    "Numbers 12345 and unicode: naïve café 思考 ◁ ▷ — done.\n",
)


def realistic_stream(length: int, context: Context | None = None) -> str:
    """Deterministic answer text of `length` characters with blocks, code and prose, and a
    section in the format of each feature the `context` enables."""
    features = context.features if context is not None else ()
    unit = "".join(_PIECES) + "".join(feature_sample(FEATURES[f]) for f in features)
    return (unit * (length // len(unit) + 1))[:length]


class _Abandoned(Exception):
    """The 8n run went past ABANDON times the n run: clearly not linear."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


class _OutOfTime(Exception):
    """The wall-clock budget ran out (or would, by `need` seconds) before a verdict."""

    def __init__(self, need: float | None = None) -> None:
        super().__init__(need)
        self.need = need


@dataclass
class _Clock:
    """The wall-clock deadline of the whole measurement (None: no budget)."""

    deadline: float | None = None

    def left(self) -> float:
        return math.inf if self.deadline is None else self.deadline - time.monotonic()

    def check(self) -> None:
        if self.left() <= 0:
            raise _OutOfTime


def time_stream(
    adapter: Adapter, text: str, size: int, budget: float | None = None,
    clock: _Clock | None = None,
) -> float:
    """CPU seconds to feed `text` in `size`-character deltas and flush; exceptions propagate.

    `budget` (CPU seconds) abandons a run that grows too slow; `clock` stops any run
    at the wall-clock deadline.
    """
    clock = clock or _Clock()
    clock.check()
    session = adapter.open(adapter.measurement_context())
    timed = getattr(session, "time_stream", None)  # a peer times itself, not the pipe
    if timed is not None:
        wall = clock.left()
        limit = budget if wall == math.inf else min(budget or wall, max(wall, 1e-3))
        seconds, abandoned = timed(text, size, limit)
        if abandoned:
            if budget is not None and seconds >= budget:
                raise _Abandoned(seconds)
            raise _OutOfTime
        return seconds
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.process_time()
        for count, i in enumerate(range(0, len(text), size)):
            session.feed(text[i : i + size])
            if count % CHECK_EVERY == 0:
                if budget is not None and time.process_time() - start > budget:
                    raise _Abandoned(time.process_time() - start)
                clock.check()
        session.flush()
        return time.process_time() - start
    finally:
        if gc_was_enabled:
            gc.enable()


@dataclass
class LinearMeasurement:
    metrics: dict[str, float] = field(default_factory=dict)
    finding: Evidence | None = None
    unmeasured: str | None = None  # why no verdict was reached (the budget ran out)


@dataclass
class _SizeResult:
    ratio: float  # math.inf when abandoned
    n: int
    short_s: float  # CPU seconds of one n run (best of the rounds)
    long_s: float  # CPU seconds of the 8n run (best), or when it was abandoned


def _ratio(adapter: Adapter, size: int, clock: _Clock, share: float) -> _SizeResult:
    """8 x (time of one 8n run) / (time of eight n runs), each the best of up to ROUNDS.

    Both sides span the same number of characters and about the same time, so
    a busy machine disturbs them alike; comparing one long run with the best of
    a few short ones would favour the short side, which can fall into a quiet
    moment whole. `share` is the wall-clock time this call may plan to use.
    """
    began = time.monotonic()
    context = adapter.measurement_context()
    n, direction = START_N, 0
    while True:  # grow n until measurable; shrink it (a slow scrubber) until a round fits
        wall = time.monotonic()
        first = time_stream(adapter, realistic_stream(n, context), size, clock=clock)
        wall = time.monotonic() - wall
        if first < MIN_SECONDS and n < MAX_N and direction >= 0:
            n, direction = n * 2, 1
        elif PLAN * max(wall, first) > clock.left() and n > MIN_N and direction <= 0:
            n, direction = n // 2, -1
        else:
            break
    round_s = ROUND_COST * max(wall, first)
    left = min(share - (time.monotonic() - began), clock.left())
    rounds = ROUNDS if left == math.inf else min(ROUNDS, int(left // round_s))
    if rounds < 1:
        if round_s > clock.left():
            raise _OutOfTime(round_s)
        rounds = 1  # over this size's share, but the budget still holds one round
    short_text, long_text = realistic_stream(n, context), realistic_stream(n * GROWTH, context)
    longs, shorts = [], []
    for _ in range(rounds):  # interleaved, so a busy spell hits both sides alike
        try:
            longs.append(time_stream(adapter, long_text, size,
                                     budget=max(first, 1e-3) * ABANDON, clock=clock))
        except _Abandoned as abandoned:
            return _SizeResult(math.inf, n, first, abandoned.seconds)
        shorts.append(sum(time_stream(adapter, short_text, size, clock=clock)
                          for _ in range(GROWTH)))
    longer, eight_short = min(longs), min(shorts)
    return _SizeResult(GROWTH * longer / max(eight_short, 1e-6), n, eight_short / GROWTH,
                       longer)


def _record(metrics: dict[str, float], size: int, measured: _SizeResult) -> None:
    metrics[f"n_{size}char"] = measured.n
    metrics[f"seconds_n_{size}char"] = round(measured.short_s, 4)
    if measured.ratio == math.inf:
        metrics[f"seconds_8n_{size}char_abandoned_at"] = round(measured.long_s, 4)
        metrics[f"ratio_{size}char_above"] = float(ABANDON)
    else:
        metrics[f"seconds_8n_{size}char"] = round(measured.long_s, 4)
        metrics[f"ratio_{size}char"] = round(measured.ratio, 2)


def ratio_words(ratio: float) -> str:
    """`8.1x`, or `abandoned after more than 32x` for a run stopped early."""
    return f"abandoned after more than {ABANDON:.0f}x" if ratio == math.inf else f"{ratio:.1f}x"


def _growth_words(ratio: float) -> str:
    if ratio == math.inf:
        return f"the longer run was abandoned after taking more than {ABANDON:.0f}x as long"
    return f"took {ratio:.1f}x as long"


def ratios_text(metrics: dict[str, float]) -> str:
    """The measured ratios in words, for a summary line: `1-char 8.1x, 16-char 7.9x`."""
    parts = []
    for size in DELTA_SIZES:
        if f"ratio_{size}char" in metrics:
            parts.append(f"{size}-char {ratio_words(metrics[f'ratio_{size}char'])}")
        elif f"ratio_{size}char_above" in metrics:
            parts.append(f"{size}-char {ratio_words(math.inf)}")
    return ", ".join(parts) + (f" (limit {LIMIT:.0f}x)" if parts else "")


def measure_linearity(
    adapter: Adapter, *, budget_s: float | None = None, reserve_s: float = 0.0,
    options: OptionNames = COMMAND_LINE,
) -> LinearMeasurement:
    """Measure both delta sizes; a ratio over the limit is measured again (noise).

    `budget_s`: wall-clock seconds the whole measurement may take, of which it
    leaves `reserve_s` unused (for its caller to report in time); when a verdict
    does not fit, `unmeasured` says so, naming the caller's `options`, and no
    finding is made up.
    """
    result = LinearMeasurement()
    clock = _Clock(None if budget_s is None else time.monotonic() + budget_s - reserve_s)
    for index, size in enumerate(DELTA_SIZES):
        measured, why_not = _measure_size(adapter, size, clock, len(DELTA_SIZES) - index)
        if why_not is not None:
            done = ", ".join(f"{s}-character deltas" for s in DELTA_SIZES[:index])
            result.unmeasured = (
                f"not measured: {why_not} did not fit "
                f"the {budget_s:g} s wall-clock budget ({options.timeout})"
                + (f"; measured: {done}" if done else "")
                + f"; raise {options.timeout} or pass {options.skip_linear}")
            if measured is not None:
                _record(result.metrics, size, measured)
            break
        assert measured is not None
        _record(result.metrics, size, measured)
        if measured.ratio > LIMIT:
            result.finding = Evidence(
                Check.LINEAR, "R-ROBUST-2",
                detail=f"time grows faster than the stream: {size}-character deltas: "
                f"{measured.n} -> "
                f"{measured.n * GROWTH} characters: {_growth_words(measured.ratio)} "
                f"(linear would be {GROWTH}x; the limit is {LIMIT:.0f}x)",
            )
            break  # a conclusive failure: the other size cannot make it pass
    return result


def _measure_size(
    adapter: Adapter, size: int, clock: _Clock, sizes_left: int
) -> tuple[_SizeResult | None, str | None]:
    """The ratio for one delta size, measured again while over the limit but not
    conclusive (a busy machine): (measurement or None, why it is not a verdict or None)."""
    try:
        measured = _ratio(adapter, size, clock, clock.left() / sizes_left)
    except _OutOfTime as out:
        need = f" (one round needs about {out.need:.1f} s)" if out.need else ""
        return None, f"the {size}-character measurement{need}"
    for _ in range(RETRIES):
        if not LIMIT < measured.ratio <= ABANDON:
            break
        try:
            again = _ratio(adapter, size, clock, clock.left() / sizes_left)
        except _OutOfTime:
            return measured, (f"confirming the {size}-character ratio of "
                              f"{ratio_words(measured.ratio)} (over the {LIMIT:.0f}x limit once)")
        if again.ratio < measured.ratio:
            measured = again
    return measured, None
