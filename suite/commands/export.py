"""`scrubcheck export`: the corpus as language-neutral vectors (docs/vectors.md).

Writes manifest.json, vectors.jsonl (one scenario a line, generated families
expanded), vectors.jsonl.gz and the two JSON Schemas into --out, and prints the
set's size, plain and compressed. The selection options are `run`'s, so a
vector set covers exactly what `run` with the same options judges; `--claim CLASS`
writes the class's reading of the scenarios within it and lists the rest in the
manifest as beyond it, as `run --claim CLASS` judges (`--formats` adds a format that
is not shipped, so its class can be exported). Exit 0 when
written, 2 on usage or corpus errors (printed as file:line [id]: message; a
vector set with a scenario missing is never written silently).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrubcheck.claims import UnknownClass, check_class
from scrubcheck.commands.options import (
    add_claim_options,
    add_out_option,
    add_seed_option,
    add_selection_options,
    apply_formats,
    usage_for,
)
from scrubcheck.corpus import load_corpus, select
from scrubcheck.vectors import VectorError, build_vector_set, write_vector_set
from scrubcheck.vocabulary import GENERIC

NAME = "export"
HELP = "write the corpus, its chunkings and expected results as language-neutral vectors"
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_out_option(parser, "where to write the vector set (default: vectors/)",
                   default=Path("vectors"))
    add_selection_options(parser)
    add_seed_option(parser)
    parser.add_argument("--random-chunkings", type=int, default=8, metavar="N",
                        help="seeded random chunkings per scenario (default 8, as in run)")
    add_claim_options(parser, default="generic (every scenario)")


def run(args: argparse.Namespace) -> int:
    if args.random_chunkings < 0:
        return _usage("--random-chunkings must not be negative")
    failed = apply_formats(args, NAME)
    if failed is not None:
        return failed
    claim = args.claim or GENERIC
    try:
        check_class(claim)
    except UnknownClass as exc:
        return _usage(exc.args[0])
    try:
        corpus = load_corpus(list(args.corpus) if args.corpus else None)
    except FileNotFoundError as exc:
        return _usage(str(exc))
    if corpus.errors:  # a set missing the scenarios that did not load would pass them by absence
        for error in corpus.errors:
            print(error, file=sys.stderr)
        return _usage(f"{len(corpus.errors)} corpus error(s) above; no vector set written")
    scenarios = select(corpus.scenarios, areas=args.area, rules=args.rule,
                       features=args.feature, ids=args.id)
    if not scenarios:
        return _usage(f"no scenario matches the selection ({len(corpus.scenarios)} loaded)")
    selection = {key: list(values) for key, values in (
        ("corpus", [str(p) for p in args.corpus or ()]), ("area", args.area or ()),
        ("rule", args.rule or ()), ("feature", args.feature or ()), ("id", args.id or ()))
        if values}
    try:
        vector_set = build_vector_set(scenarios, seed=args.seed,
                                      random_count=args.random_chunkings, selection=selection,
                                      conformance_class=claim)
    except VectorError as exc:
        return _usage(str(exc))
    for scenario_id, reason in vector_set.left_out:
        print(f"left out [{scenario_id}]: {reason}", file=sys.stderr)
    write_vector_set(vector_set, args.out)
    manifest = vector_set.manifest
    size = manifest["files"]["vectors.jsonl"]
    print(f"wrote {manifest['count']} vectors to {args.out} (SPEC {manifest['spec_version']}, "
          f"corpus {manifest['corpus_digest']}, seed {manifest['seed']}"
          + (f"; {len(vector_set.left_out)} left out, listed in manifest.json" if
             vector_set.left_out else "") + ")")
    print(f"vectors.jsonl: {size['bytes']:,} bytes, {size['gzip_bytes']:,} gzipped")
    if claim != GENERIC:
        print(f"class {claim}: {manifest['count']} within, {len(vector_set.beyond)} beyond "
              "(listed in manifest.json as beyond, with why)")
    return 0
