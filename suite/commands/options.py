"""Option helpers the commands share: old spellings kept as warning aliases, sizes, shards,
the corpus and its selection.

    new = parser.add_argument("--timeout", type=float, default=10.0, metavar="S", help=...)
    add_alias(parser, "--example-timeout", new)
    parser.add_argument("--memory-limit", type=size_argument, metavar="SIZE", help=...)

An alias stores into the new option's destination (same type and metavar), so
the command sees one value whichever spelling was used, and scripts that use
the old name go on working while they are told to move. (argparse's own
`deprecated=` needs Python 3.13.) A size is checked while the arguments are
parsed, so a bad one is a usage error (exit 2) naming the option.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from scrubcheck.corpus.shard import Shard
from scrubcheck.runner.settings import parse_size


class _DeprecatedAlias(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, *, new: str,
                 **kwargs: object) -> None:
        super().__init__(option_strings, dest, **kwargs)  # type: ignore[arg-type]
        self.new = new

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"{parser.prog}: {option_string} is deprecated; use {self.new} (same meaning)",
              file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_alias(parser: argparse.ArgumentParser, old: str, new: argparse.Action) -> None:
    """Accept `old` as a deprecated spelling of the option `new`."""
    parser.add_argument(old, dest=new.dest, type=new.type, metavar=new.metavar,
                        action=_DeprecatedAlias, new=new.option_strings[0],
                        default=argparse.SUPPRESS,
                        help=f"deprecated spelling of {new.option_strings[0]}")


def size_argument(text: str) -> int:
    """An argparse `type`: `512M`, `2G` -> bytes."""
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def shard_argument(text: str) -> Shard:
    """An argparse `type`: `2/5` -> Shard(2, 5); K outside 1..N is a usage error (exit 2)."""
    try:
        return Shard.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


SHARD_HELP = ("run only the K-th of N parts of the selected scenarios (by a stable hash of "
              "the scenario id, so N jobs given 1/N .. N/N cover everything exactly once; the "
              "once-per-run linear-time check runs in shard 1); combine the parts' report.json "
              "files with `scrubcheck merge`")


def add_shard_option(parser: argparse.ArgumentParser, help: str = SHARD_HELP) -> None:
    """`--shard K/N`, spelled and validated alike on every command that can split its work
    across N jobs (`run`, `matrix`, `hunt`, `gateway audit`)."""
    parser.add_argument("--shard", type=shard_argument, metavar="K/N", help=help)


def add_dask_options(parser: argparse.ArgumentParser) -> None:
    """`--dask SCHEDULER_ADDRESS` and `--dask-shards N` (`run`, `matrix`)."""
    parser.add_argument("--dask", metavar="SCHEDULER_ADDRESS",
                        help="run the shards on this Dask cluster (e.g. tcp://10.0.0.5:8786), "
                             "each by the ordinary worker pool on a Dask worker, and merge them; "
                             "every worker needs scrubcheck and the scrubbers/peers installed "
                             "(checked first; see docs/distributed.md)")
    parser.add_argument("--dask-shards", type=_positive_int, default=None, metavar="N",
                        help="shards per implementation with --dask (default: two per worker "
                             "thread)")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of at least 1")
    return value


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    """--corpus and the filters `scrubcheck.corpus.select` takes (area, rule, feature,
    id), spelled and explained alike wherever a command runs a selection of the corpus."""
    parser.add_argument("--corpus", action="append", type=Path, metavar="PATH",
                        help="corpus file or directory (repeatable; default: the shipped corpus)")
    parser.add_argument("--area", action="append", metavar="A", help="only this area (repeatable)")
    parser.add_argument("--rule", action="append", metavar="R",
                        help="only scenarios exercising this rule; globs like R-CODE-* work")
    parser.add_argument("--feature", action="append", metavar="F",
                        help="only scenarios enabling this feature (repeatable)")
    parser.add_argument("--id", action="append", metavar="GLOB", help="only these scenario ids")
