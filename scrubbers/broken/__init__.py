"""Deliberately broken scrubbers, each modelling one bug seen in the field.

They exist to show (in tests and docs) that the harness finds each kind of
bug and reports it precisely. Spec strings for `--scrubber`:
"""

BROKEN: dict[str, str] = {
    name: f"scrubcheck.scrubbers.broken.{name}:{cls}"
    for name, cls in (
        ("passthrough", "PassthroughScrubber"),
        ("stateless", "StatelessScrubber"),
        ("tags_only", "TagsOnlyScrubber"),
        ("flush_last_line", "FlushLastLineScrubber"),
        ("raises", "RaisesScrubber"),
        ("hangs", "HangsScrubber"),
        ("no_context", "NoContextScrubber"),
        ("returns_bytes", "ReturnsBytesScrubber"),
        # One field bug each on top of the reference scrubber (the hunt/fuzz self-test):
        ("short_holdback", "ShortHoldbackScrubber"),
        ("case_sensitive", "CaseSensitiveScrubber"),
        ("flush_leaks_tail", "FlushLeaksTailScrubber"),
        ("prefill_ignored", "PrefillIgnoredScrubber"),
        ("any_backtick_guard", "AnyBacktickGuardScrubber"),
        ("splice_blind", "SpliceBlindScrubber"),
        ("quadratic_rescan", "QuadraticRescanScrubber"),
        ("buffers_all", "BuffersAllScrubber"),
        ("drops_blank_deltas", "DropsBlankDeltasScrubber"),
    )
}

__doc__ += "".join(f"\n    {spec}" for spec in BROKEN.values())
