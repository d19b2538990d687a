"""The `scrubcheck` command: one subcommand per module in `scrubcheck.commands`.

Each command module exposes `NAME`, `HELP`, `add_arguments(parser)` and
`run(args) -> int` (0 ok, 1 findings, 2 usage or corpus error).

Two ways a user ends a command early are handled here, once for every command:

- A closed stdout (`scrubcheck run ... | head`): the rest of the output is
  discarded (stdout is pointed at the null device, as the Python documentation
  recommends for SIGPIPE) but the command runs to its end, so the reports are
  still written and the exit code is the command's own verdict, which a CI
  script with `set -o pipefail` then sees. Only if the command itself trips
  over the closed pipe does it end early, quietly, with 141 (128 + SIGPIPE,
  what a shell reports for any tool stopped by a closed pipe).
- Ctrl-C: one line "interrupted" on stderr and exit 130 (128 + SIGINT), the
  shell's convention, instead of a KeyboardInterrupt traceback.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
from importlib.metadata import PackageNotFoundError, version

COMMAND_MODULES = (
    "run", "explain", "show", "lint", "coverage", "peers", "matrix", "diff", "hunt", "fuzz",
    "gateway", "gateways", "merge", "mutate", "formats", "site", "export", "regenerate",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scrubcheck",
        description="Conformance suite and fuzzing harness for LLM reasoning scrubbers.",
    )
    parser.add_argument("--version", action="version", version=f"scrubcheck {_version()}",
                        help="print the installed scrubcheck's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"scrubcheck.commands.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"scrubcheck.commands.{module_name}":
                raise
            continue
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(handler=module.run)
    return parser


def _version() -> str:
    """The version of the installed distribution (what `pip show scrubcheck` says)."""
    try:
        return version("scrubcheck")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


EXIT_BROKEN_PIPE = 128 + 13  # SIGPIPE
EXIT_INTERRUPTED = 128 + 2  # SIGINT


class ClosedPipeGuard(io.TextIOBase):
    """A stdout that turns into the null device when its reader goes away.

    Writes after that succeed and go nowhere, so a command whose output is cut
    by `| head` still finishes its work (reports, exit code) without a traceback.
    """

    def __init__(self, stream) -> None:
        self.stream = stream
        self.closed_by_reader = False

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            self.divert()
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            self.divert()

    def divert(self) -> None:
        """Point the stream's file descriptor at the null device (once)."""
        if not self.closed_by_reader:
            self.closed_by_reader = True
            _to_devnull(self.stream)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def _to_devnull(stream) -> None:
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (a test's capture): nothing left to flush into a pipe
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, descriptor)
    finally:
        os.close(devnull)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    original, guard = sys.stdout, ClosedPipeGuard(sys.stdout)
    sys.stdout = guard
    try:
        code = int(args.handler(args))
        guard.flush()
        return code
    except BrokenPipeError:  # the command wrote to the closed pipe some other way
        guard.divert()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        guard.flush()
        print(f"scrubcheck {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        sys.stdout = original


if __name__ == "__main__":
    sys.exit(main())
