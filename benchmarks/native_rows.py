"""The AI SDK rows judged over the peer protocol and natively in Node, side by side.

The matrix judges ai6-stream and ai7-stream natively (scrubcheck.vectors.native:
js/scrubcheck-vectors over the exported vectors) instead of over the peer protocol, to
spend its time on the middleware rather than on one JSON round trip per delta. This
prints, for each row, the wall time of the protocol run and of the native runs (the
middleware's wrapStream, as the matrix uses it, and through streamText) over the same
seeded sample in one process, their ratios, and how many verdicts agree. Run with the
peers installed (scrubcheck peers install ai6-stream ai7-stream):

    python benchmarks/native_rows.py [--every N] [--jobs J]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

from tabulate import tabulate

from scrubcheck.corpus import load_corpus
from scrubcheck.matrix.verdicts import verdict
from scrubcheck.peers import find_manifest, read_marker
from scrubcheck.peers.manifest import NativeRun
from scrubcheck.results import RunResult
from scrubcheck.runner import RunSettings
from scrubcheck.runner.shard import run_selection
from scrubcheck.vectors.native import run_natively

ROWS = ("ai6-stream", "ai7-stream")


def _timed(run) -> tuple[RunResult, float]:
    clock = time.monotonic()
    result = run()
    return result, time.monotonic() - clock


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=8, help="every Nth scenario (default 8)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    scenarios = load_corpus(None).scenarios[::args.every]
    settings = RunSettings(jobs=args.jobs, linear_check=False, conformance_class="generic")
    table = []
    for name in ROWS:
        manifest = find_manifest(name)
        if read_marker(manifest.package) is None:
            print(f"{name}: not installed (scrubcheck peers install {name}), skipped")
            continue
        protocol, protocol_s = _timed(lambda n=name: run_selection(f"peer:{n}", scenarios,
                                                                   settings))
        verdicts = [verdict(r) for r in protocol.results]
        for via in ("wrapStream", "streamText"):
            native_manifest = replace(manifest, native=NativeRun("ai-sdk", via))
            native, native_s = _timed(lambda m=native_manifest: run_natively(m, scenarios,
                                                                            settings))
            same = sum(a == verdict(b) for a, b in zip(verdicts, native.results, strict=True))
            table.append([name, len(scenarios), f"{protocol_s:.0f}", via, f"{native_s:.0f}",
                          f"{protocol_s / native_s:.1f}x", f"{same}/{len(scenarios)}"])
    print(tabulate(table, headers=["row", "scenarios", "protocol s", "native via",
                                   "native s", "protocol/native", "same verdict"]))
    print(f"\n(jobs {args.jobs}; {Path(__file__).name}; one process, rows one after another)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
