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
    )
}

__doc__ += "".join(f"\n    {spec}" for spec in BROKEN.values())
