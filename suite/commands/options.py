"""Every option more than one command takes, defined once: its name, default, help and
the old spellings it still accepts.

    add_scrubber_option(parser)
    add_seed_option(parser)
    timeout = add_timeout_option(parser, 10.0, "wall-clock seconds one case may take ...")
    add_alias(parser, "--example-timeout", timeout)

The names are the same on every command: `--scrubber`, `--seed` (default 0 everywhere),
`--level`, `--jobs`, `--timeout`, `--memory-limit`, `--corpus`, `--out` (where a command
writes what it produces) and `--no-linear`. Where a number's default differs, the
meaning differs (a fuzzing process is not a corpus worker, a gateway request is not a
scenario), and the help says which.

An alias stores into the new option's destination (same type, metavar and nargs), so
the command sees one value whichever spelling was used, and scripts that use the old
name go on working while they are told, on stderr, to move. (argparse's own
`deprecated=` needs Python 3.13.) A size is checked while the arguments are parsed, so a
bad one is a usage error (exit 2) naming the option.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from scrubcheck.claims import UnknownClass, check_class
from scrubcheck.corpus.shard import Shard
from scrubcheck.formats import FormatsUnavailable
from scrubcheck.runner.settings import default_jobs, parse_size
from scrubcheck.vocabulary import register_formats

EXIT_USAGE = 2

#: Every form `scrubcheck.adapters.load_adapter` accepts, for the help of any option
#: that takes a scrubber spec.
SCRUBBER_FORMS = (
    "module:attr, path/file.py:attr or a registered name (an entry point of the "
    "scrubcheck.scrubbers group), each optionally prefixed stream: (the default: "
    "feed/flush), batch: (str -> str) or splitter: (str -> (reasoning, answer)); or "
    "peer:NAME or peer:path/to/peer.toml for a peer program in its own environment")


def usage_error(command: str, message: str) -> int:
    """Say what is wrong on stderr as `scrubcheck COMMAND: message`; the usage exit code."""
    print(f"scrubcheck {command}: {message}", file=sys.stderr)
    return EXIT_USAGE


def usage_for(command: str) -> Callable[[str], int]:
    """`usage_error` for one command: `_usage = usage_for(NAME)`, then `return _usage(...)`."""
    return functools.partial(usage_error, command)


class _DeprecatedAlias(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, *, new: str,
                 **kwargs: Any) -> None:  # argparse.Action's own keywords, as given
        super().__init__(option_strings, dest, **kwargs)
        self.new = new

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"{parser.prog}: {option_string} is deprecated; use {self.new} (same meaning)",
              file=sys.stderr)
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)


def add_alias(parser: argparse.ArgumentParser, old: str, new: argparse.Action) -> None:
    """Accept `old` as a deprecated spelling of the option `new` (a flag, as `--no-linear`,
    or an option taking a value, optional or not, as `--out [DIR]`).

    The old spelling stays out of the usage line and the option list (they show what to
    type now); the new option's help names it, so a reader of an old script finds it."""
    typed: dict[str, Any] = {} if new.type is None else {"type": new.type}  # a flag: none
    parser.add_argument(old, dest=new.dest, metavar=new.metavar, nargs=new.nargs,
                        const=new.const, action=_DeprecatedAlias, new=new.option_strings[0],
                        default=argparse.SUPPRESS, help=argparse.SUPPRESS, **typed)
    new.help = f"{new.help or ''} (old spelling {old}: still accepted, with a warning)".strip()


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


def random_seed_argument(text: str) -> int | None:
    """An argparse `type`: a whole number, or `random` (None: the command draws one)."""
    if text == "random":
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number or "
                                         "'random'") from None


# ------------------------------------------------------------- what is tested, and how
def add_scrubber_option(parser: argparse.ArgumentParser,
                        role: str = "the scrubber to test (default: reference)", *,
                        repeatable: bool = False) -> None:
    """`--scrubber SPEC`: one (default: reference), or a repeatable list (default: none)."""
    if repeatable:
        parser.add_argument("--scrubber", action="append", default=[], metavar="SPEC",
                            help=f"{role}; repeatable; SPEC is {SCRUBBER_FORMS}")
    else:
        parser.add_argument("--scrubber", default="reference", metavar="SPEC",
                            help=f"{role}; SPEC is {SCRUBBER_FORMS}")


def add_against_option(parser: argparse.ArgumentParser) -> None:
    """`--against SPEC`, the second scrubber of a differential hunt or fuzz."""
    parser.add_argument("--against", metavar="SPEC",
                        help="differential mode: also report where the two scrubbers disagree "
                             "(SPEC as for --scrubber)")


def add_seed_option(parser: argparse.ArgumentParser,
                    what: str = "the random chunkings and samples", *,
                    random_ok: bool = False) -> None:
    """`--seed N`, default 0 on every command, so two runs of one command agree unless asked
    otherwise; where a search can start anywhere, `--seed random` draws one (printed)."""
    if random_ok:
        parser.add_argument("--seed", type=random_seed_argument, default=0,
                            metavar="N|random",
                            help=f"seed of {what} (default 0; random: a fresh seed, printed)")
    else:
        parser.add_argument("--seed", type=int, default=0, metavar="N",
                            help=f"seed of {what} (default 0)")


def add_level_option(parser: argparse.ArgumentParser, what: str = "failures",
                     effect: str = "make the exit code 1", default: str | None = "must",
                     default_text: str | None = None) -> None:
    """`--level must|should`: which failures count (for the exit code, or as `effect` says)."""
    parser.add_argument("--level", choices=("must", "should"), default=default,
                        help=f"which {what} {effect}: must (MUST rules, errors and "
                             "timeouts) or should (SHOULD rules too) (default: "
                             f"{default_text or default})")


def add_jobs_option(parser: argparse.ArgumentParser, what: str = "worker processes",
                    default: int | None = None) -> None:
    """`--jobs N` (default: all cores, or what the command's work allows)."""
    text = f"all cores, here {default_jobs()}" if default is None else str(default)
    parser.add_argument("--jobs", type=int, default=default, metavar="N",
                        help=f"{what} (default: {text})")


def add_timeout_option(parser: argparse.ArgumentParser, default: float,
                       help: str) -> argparse.Action:
    """`--timeout S`, wall-clock seconds; `help` says of what and ends with the default."""
    return parser.add_argument("--timeout", type=float, default=default, metavar="S",
                               help=help)


def add_memory_limit_option(parser: argparse.ArgumentParser,
                            what: str = "each worker process",
                            consequence: str = "(default: no limit); hitting it is an "
                                               "ERROR") -> None:
    """`--memory-limit SIZE` (512M, 2G), checked while parsing."""
    parser.add_argument("--memory-limit", type=size_argument, metavar="SIZE",
                        help=f"memory {what} may allocate, e.g. 512M or 2G {consequence}")


def add_no_linear_option(parser: argparse.ArgumentParser) -> None:
    """`--no-linear` (old spelling of `run`: `--no-linear-check`)."""
    new = parser.add_argument("--no-linear", action="store_true",
                              help="skip the once-per-run linear-time measurement (R-ROBUST-2)")
    add_alias(parser, "--no-linear-check", new)


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    """`--no-progress`: no bar on a terminal, no progress lines in a log."""
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (on a terminal) or progress lines (in a log)")


# ------------------------------------------------------------------ where results go
def add_out_option(parser: argparse.ArgumentParser, help: str, *, old: Sequence[str] = (),
                   metavar: str = "DIR", optional: bool = False,
                   default: Path | None = None) -> None:
    """`--out`: where a command writes what it produces (a directory or a file).

    `optional`: `--out` alone means the command's default place, no `--out` nothing
    written (the value is then `""` and None). `old`: former spellings, kept as aliases
    that warn (`--report-dir`, `--save`, `--report`)."""
    if optional:
        new = parser.add_argument("--out", nargs="?", const="", default=None, metavar=metavar,
                                  help=help)
    else:
        new = parser.add_argument("--out", type=Path, default=default, metavar=metavar,
                                  help=help)
    for spelling in old:
        add_alias(parser, spelling, new)


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


def add_explain_options(parser: argparse.ArgumentParser, budget: float = 900.0,
                        of: str = "the whole explanation") -> None:
    """The bounds of an explanation of failures as bugs (`run`, `explain`, `matrix`, whose
    budget is per row)."""
    parser.add_argument("--explain-seconds", type=float, default=5.0, metavar="S",
                        help="time to shrink one failing scenario's streams (default 5)")
    parser.add_argument("--explain-budget", type=float, default=budget, metavar="S",
                        help=f"time for {of}; scenarios not reached are listed as not "
                             f"explained (default {budget:g})")


def add_corpus_option(parser: argparse.ArgumentParser) -> None:
    """`--corpus PATH`, repeatable; without it, the shipped corpus."""
    parser.add_argument("--corpus", action="append", type=Path, metavar="PATH",
                        help="corpus file or directory (repeatable; default: the shipped corpus)")


#: what --claim defaults to on a command that judges a scrubber
CLAIM_DEFAULT = ("what the scrubber claims (its `claims` attribute or peer manifest), "
                 "else generic")


def add_claim_options(parser: argparse.ArgumentParser, default: str = CLAIM_DEFAULT) -> None:
    """--claim and --formats (SPEC section 12), alike on every command that judges (and on
    export, whose `default` is generic: it has no scrubber to ask)."""
    parser.add_argument("--claim", metavar="CLASS", default=None,
                        help="the conformance class to judge: generic, or a format's name "
                             f"(scrubcheck formats list); default: {default}. "
                             "Scenarios outside the class are BEYOND CLAIM: shown, never "
                             "passed, never failed")
    add_formats_option(parser)


def add_formats_option(parser: argparse.ArgumentParser) -> None:
    """--formats FILE: a format that is not shipped joins the registry for one command."""
    parser.add_argument("--formats", metavar="FILE", type=Path, action="append", default=[],
                        help="a format file (or a folder of them) that is not shipped: its "
                             "format joins the registry for this command (formats/README.md); "
                             "repeatable")


def apply_formats(args: argparse.Namespace, command: str) -> int | None:
    """Register the --formats files; the usage error (exit 2) naming every file:line
    problem, or None when they loaded (or none was given)."""
    paths = getattr(args, "formats", None) or []
    if not paths:
        return None
    try:
        register_formats(paths)
    except FormatsUnavailable as exc:
        return usage_error(command, f"unusable --formats:\n{exc}")
    return None


def apply_claim_options(args: argparse.Namespace, command: str) -> int | None:
    """Register --formats and check --claim before anything is judged: the usage error
    (exit 2) naming the file:line or the unknown class, or None."""
    failed = apply_formats(args, command)
    if failed is not None:
        return failed
    if getattr(args, "claim", None) is not None:
        try:
            check_class(args.claim)
        except UnknownClass as exc:
            return usage_error(command, str(exc.args[0]))
    return None


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    """--corpus and the filters `scrubcheck.corpus.select` takes (area, rule, feature,
    id), spelled and explained alike wherever a command runs a selection of the corpus."""
    add_corpus_option(parser)
    parser.add_argument("--area", action="append", metavar="A", help="only this area (repeatable)")
    parser.add_argument("--rule", action="append", metavar="R",
                        help="only scenarios exercising this rule; globs like R-CODE-* work")
    parser.add_argument("--feature", action="append", metavar="F",
                        help="only scenarios enabling this feature (repeatable)")
    parser.add_argument("--id", action="append", metavar="GLOB", help="only these scenario ids")


# ------------------------------------------------------ environments scrubcheck builds
def add_install_list_actions(parser: argparse.ArgumentParser, things: str, *,
                             install_help: str, list_help: str) -> None:
    """`install [NAME...] [--force]` and `list`, the two actions of `peers` and `gateways`
    (read back as `args.action`, `args.names`, `args.force`)."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    install = sub.add_parser("install", help=install_help)
    install.add_argument("names", nargs="*", metavar="NAME", help=f"{things} to install")
    install.add_argument("--force", action="store_true", help="rebuild even when installed")
    sub.add_parser("list", help=list_help)


def install_or_list(args: argparse.Namespace, command: str,
                    install: Callable[[list[str], bool], int],
                    show: Callable[[], int]) -> int:
    """Run the action `add_install_list_actions` parsed; a usage error when none was given."""
    if args.action == "install":
        return install(args.names, args.force)
    if args.action == "list":
        return show()
    return usage_error(command, "choose an action: install or list")
