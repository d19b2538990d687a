"""The process `scrubcheck fuzz` starts per job: atheris/libFuzzer over the fuzz target.

    python -m scrubcheck.hunt.fuzzmain --scrubber SPEC [--against SPEC] [--known FILE]
        -- CORPUS_DIR -max_total_time=60 -artifact_prefix=crashes/ ...

The scrubber's own functions get atheris' instrumentation once loaded, so
libFuzzer is guided by coverage of the scrubber (for a peer in another process
there is no coverage to see; the structure-aware decoding still applies).
Failures listed in the known file do not crash: the run looks for new ones.
With --collect, failures do not crash at all: their inputs are written to that
directory and fuzzing goes on (a hang still ends the process: libFuzzer's
-timeout). What the scrubber prints through Python goes to the job's log only
up to PRINTED_LIMIT bytes (a scrubber printing on every delta would fill the
disk); libFuzzer's own statistics are written below Python and always reach it.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import TextIO

PRINTED_LIMIT = 1 << 20


def instrumented_modules(spec: str) -> tuple[str, ...]:
    """Prefixes of the module names whose code libFuzzer should see covered for `spec`."""
    from scrubcheck.adapters.peer import PREFIX
    from scrubcheck.adapters.resolve import registered_names, split_kind

    if spec.startswith(PREFIX):
        return ()  # a peer runs in its own process: no coverage to see from here
    _, target = split_kind(spec)
    target = registered_names().get(target, target)
    location = target.rpartition(":")[0] if ":" in target else target
    if location.endswith(".py") or "/" in location:
        return ("_scrubcheck_file_",)
    if location.startswith("scrubcheck.scrubbers"):
        return ("scrubcheck.scrubbers",)  # the broken examples build on the reference
    return (location.split(".")[0],) if location else ()


def instrument(prefixes: tuple[str, ...]) -> int:
    """Add coverage instrumentation to every loaded function of those modules; returns
    how many. (After loading, so file-path scrubbers and early imports are covered too.)"""
    import gc
    import types

    from atheris.instrument_bytecode import instrument_func

    count = 0
    for obj in gc.get_objects():
        module = getattr(obj, "__module__", None) if isinstance(obj, types.FunctionType) else None
        if module and prefixes and module.startswith(prefixes):
            try:
                instrument_func(obj)
                count += 1
            except Exception:  # noqa: BLE001 - an uninstrumentable function stays as it is
                pass
    return count


def read_known(path: str | None) -> set[tuple[str, str]]:
    if not path:
        return set()
    known = set()
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            prop, _, rule = line.strip().partition(" ")
            if prop and rule:
                known.add((prop, rule))
    return known


class CappedText(io.TextIOBase):
    """A text stream that passes the first `limit` characters on, then drops the rest."""

    def __init__(self, inner: TextIO, limit: int = PRINTED_LIMIT) -> None:
        self.inner, self.left = inner, limit

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.left > 0:
            self.inner.write(text[: self.left])
            if self.left <= len(text):
                self.inner.write(f"\n[scrubcheck: more than {PRINTED_LIMIT:,} characters "
                                 "printed; the rest is not kept]\n")
            self.left -= len(text)
        return len(text)

    def flush(self) -> None:
        self.inner.flush()


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    ours, libfuzzer = (argv[: argv.index("--")], argv[argv.index("--") + 1:]) \
        if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(prog="scrubcheck.hunt.fuzzmain")
    parser.add_argument("--scrubber", required=True)
    parser.add_argument("--against")
    parser.add_argument("--known")
    parser.add_argument("--collect", help="write failing inputs here and keep fuzzing")
    parser.add_argument("--claim", default="generic", help="the conformance class to decode in")
    parser.add_argument("--formats", action="append", default=[],
                        help="a format file the parent registered (repeatable)")
    args = parser.parse_args(ours)

    import atheris

    from scrubcheck.adapters import load_adapter
    from scrubcheck.hunt.target import FuzzTarget
    from scrubcheck.vocabulary import register_formats

    if args.formats:
        register_formats([Path(p) for p in args.formats])
    adapter = load_adapter(args.scrubber)
    against = load_adapter(args.against) if args.against else None
    import scrubcheck.specmodel  # noqa: F401 - load everything the checks use, then instrument

    instrument(instrumented_modules(args.scrubber))

    log = CappedText(sys.stderr)
    sys.stdout = sys.stderr = log
    collect = Path(args.collect) if args.collect else None
    target = FuzzTarget(adapter, against, read_known(args.known), collect=collect,
                        conformance_class=args.claim)
    atheris.Setup([sys.argv[0], *libfuzzer], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
