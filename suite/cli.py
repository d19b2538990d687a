"""The `scrubcheck` command: one subcommand per module in `scrubcheck.commands`.

Each command module exposes `NAME`, `HELP`, `add_arguments(parser)` and
`run(args) -> int` (0 ok, 1 findings, 2 usage or corpus error).
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMAND_MODULES = (
    "run", "show", "lint", "coverage", "peers", "matrix", "diff", "hunt", "fuzz", "gateway",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scrubcheck",
        description="Conformance suite and fuzzing harness for LLM reasoning scrubbers.",
    )
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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
