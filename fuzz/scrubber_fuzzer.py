#!/usr/bin/python3
"""scrubcheck's fuzz target for OSS-Fuzz and ClusterFuzzLite (and plain local runs).

    python3 fuzz/scrubber_fuzzer.py CORPUS_DIR -max_total_time=60

Every property of `scrubcheck hunt` (no leak, no tag, chunking invariance,
idempotence, truncation, exact answer, never raising) is checked on each input;
a violation raises an exception named after its property and rule, which the
infrastructure reports as a crash. Turn a crash input into a corpus scenario with

    scrubcheck fuzz --scrubber SPEC --input crash-<sha1> --out findings/

`build.sh` writes one copy of this file per scrubber with SCRUBBER filled in;
locally, set $SCRUBCHECK_SCRUBBER.
"""

import os
import sys

import atheris

SCRUBBER = "scrubcheck.scrubbers.reference:ReferenceScrubber"


def main() -> None:
    from scrubcheck.adapters import load_adapter
    from scrubcheck.hunt.fuzzmain import instrument, instrumented_modules
    from scrubcheck.hunt.target import FuzzTarget

    spec = os.environ.get("SCRUBCHECK_SCRUBBER", SCRUBBER)
    adapter = load_adapter(spec)
    import scrubcheck.specmodel  # noqa: F401 - load what the checks use before instrumenting

    instrument(instrumented_modules(spec))
    atheris.Setup(sys.argv, FuzzTarget(adapter))
    atheris.Fuzz()


if __name__ == "__main__":
    main()
