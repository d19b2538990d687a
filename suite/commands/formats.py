"""`scrubcheck formats`: the format registry and the conformance classes it makes.

`scrubcheck formats list` prints every format (shipped, and any `--formats FILE`
adds) with its role in the generic class, its letter-case rule, what its chat template
does and its delimiters by kind; each format is a conformance class of its own (SPEC
section 12), besides `generic`. `scrubcheck formats show NAME` prints one file's facts
with its sources. Exit 2 on an unknown name or unusable --formats files.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tabulate import tabulate

from scrubcheck.commands.options import apply_formats, usage_for
from scrubcheck.formats import Format, registered_formats

NAME = "formats"
HELP = "list the format registry (one conformance class per format)"
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("list", "show"), help="list every format, or show one")
    parser.add_argument("name", nargs="?", help="the format to show")
    parser.add_argument("--formats", metavar="FILE", type=Path, action="append", default=[],
                        help="format files or folders that are not shipped (repeatable)")


def _delimiters(fmt: Format) -> str:
    parts = []
    for d in fmt.delimiters:
        if d.grammar is not None:
            g = d.grammar
            parts.append(f"channel-grammar {g.start}/{g.channel} … {g.message} … "
                         + "|".join(g.ends))
        elif d.text:
            parts.append(f"marker {d.text}")
        else:
            parts.append(f"{d.kind} {d.open} … {' | '.join(d.closes)}")
    return "; ".join(parts)


def run(args: argparse.Namespace) -> int:
    failed = apply_formats(args, NAME)
    if failed is not None:
        return failed
    formats = registered_formats()
    if args.action == "show":
        if args.name not in formats:
            return _usage(f"unknown format {args.name!r} (known: {', '.join(formats)})")
        fmt = formats[args.name]
        print(f"{fmt.name}: {fmt.title}  ({fmt.file})")
        print(f"  generic class: {fmt.generic}; letter case in its class: {fmt.case}; "
              f"template pre-fills the open: {fmt.template.prefills_open}; "
              f"model may skip reasoning: {'yes' if fmt.template.may_skip_reasoning else 'no'}")
        if fmt.models:
            print(f"  models: {', '.join(fmt.models)}")
        print(f"  delimiters: {_delimiters(fmt)}")
        for source in fmt.sources:
            print(f"  source: {source.url}\n          {source.shows}")
        return 0
    rows = [[f.name, f.generic, f.case, f.template.prefills_open,
             "yes" if f.template.may_skip_reasoning else "no", _delimiters(f)]
            for f in formats.values()]
    print(tabulate(rows, headers=["format (class)", "generic", "case", "pre-fill", "skip",
                                  "delimiters"]))
    print(f"\n{len(rows)} formats; conformance classes: generic, " + ", ".join(formats))
    return 0
