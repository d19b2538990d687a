"""The one shell command that reproduces a failure."""

from __future__ import annotations

import shlex


def replay_command(
    scenario_id: str,
    scrubber: str,
    chunking: str,
    seed: int,
    corpus_paths: tuple[str, ...] | list[str] = (),
    conformance_class: str = "generic",
) -> str:
    """`scrubcheck show <id> --scrubber <spec> --chunking <name> --seed <seed>`, and
    `--claim CLASS` for a scenario judged in a format's class (SPEC section 12)."""
    parts = ["scrubcheck", "show", scenario_id, "--scrubber", scrubber, "--chunking", chunking,
             "--seed", str(seed)]
    for path in corpus_paths:
        parts += ["--corpus", path]
    if conformance_class != "generic":
        parts += ["--claim", conformance_class]
    return shlex.join(parts)
