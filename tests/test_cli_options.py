"""The options the commands share: one name, one default and one help on every command,
old spellings that still work and say what replaced them, `--version`, and `show`'s exit
code following `--level` as `run`'s does."""

from __future__ import annotations

import argparse
from importlib.metadata import version
from pathlib import Path

import pytest

import scrubcheck
from scrubcheck.cli import build_parser, main
from scrubcheck.commands.options import SCRUBBER_FORMS, usage_error

BUFFERS_ALL = "scrubcheck.scrubbers.broken.buffers_all:BuffersAllScrubber"


def _commands() -> dict[str, argparse.ArgumentParser]:
    """Every command's parser, by its words: 'run', 'gateway audit', 'peers install', ..."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if words:
            found[" ".join(words)] = parser
        for sub in subs:
            for name, child in sub.choices.items():
                walk(child, (*words, name))

    walk(build_parser(), ())
    return found


def _option(parser: argparse.ArgumentParser, name: str) -> argparse.Action | None:
    return next((a for a in parser._actions if name in a.option_strings), None)


COMMANDS = _commands()


# ------------------------------------------------------------------ one name per idea
RETIRED = ("--no-linear-check", "--report-dir", "--save", "--report", "--example-timeout",
           "--input-timeout")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_old_spelling_is_only_ever_a_deprecated_alias(command):
    """No command offers a retired name as an option of its own: where it is still
    accepted, it is hidden from the usage and help and the new option's help names it."""
    parser = COMMANDS[command]
    for name in RETIRED:
        action = _option(parser, name)
        if action is not None:
            assert type(action).__name__ == "_DeprecatedAlias", (command, name)
            assert action.help is argparse.SUPPRESS and action.default is argparse.SUPPRESS
            assert name not in parser.format_usage(), (command, name)
            new = _option(parser, action.new)  # type: ignore[attr-defined]
            assert new is not None and f"old spelling {name}" in (new.help or ""), (command,
                                                                                     name)


def test_the_shared_options_exist_where_the_issue_says_they_should():
    where = {
        "--scrubber": {"run", "show", "hunt", "fuzz", "matrix", "gateway check"},
        "--seed": {"run", "show", "hunt", "fuzz", "matrix", "mutate"},
        "--level": {"run", "show", "hunt", "fuzz", "merge", "mutate"},
        "--no-linear": {"run", "hunt", "fuzz"},
        "--out": {"run", "hunt", "fuzz", "matrix", "merge", "mutate", "coverage",
                  "gateway audit", "gateway record", "gateway import"},
        "--corpus": {"run", "show", "mutate", "lint", "coverage", "gateway serve",
                     "gateway audit"},
        "--memory-limit": {"run", "show", "hunt", "fuzz", "matrix"},
    }
    for name, commands in where.items():
        have = {c for c, p in COMMANDS.items() if _option(p, name) is not None}
        assert commands <= have, (name, commands - have)


@pytest.mark.parametrize("command", sorted(c for c in COMMANDS if _option(COMMANDS[c], "--seed")))
def test_seed_defaults_to_0_everywhere(command):
    assert _option(COMMANDS[command], "--seed").default == 0


@pytest.mark.parametrize("command",
                         sorted(c for c in COMMANDS if _option(COMMANDS[c], "--scrubber")))
def test_scrubber_help_names_every_form_the_loader_takes(command):
    text = _option(COMMANDS[command], "--scrubber").help
    assert SCRUBBER_FORMS in text
    for form in ("module:attr", "path/file.py:attr", "registered name", "stream:", "batch:",
                 "splitter:", "peer:NAME", "peer:path/to/peer.toml"):
        assert form in text, (command, form)


def test_hunt_and_fuzz_draw_a_seed_only_when_asked(capsys):
    for command in ("hunt", "fuzz"):
        parser = COMMANDS[command]
        assert parser.parse_args([]).seed == 0
        assert parser.parse_args(["--seed", "random"]).seed is None  # the engine draws one
        assert parser.parse_args(["--seed", "7"]).seed == 7
        with pytest.raises(SystemExit):
            parser.parse_args(["--seed", "sometimes"])
    assert "expected a whole number or 'random'" in capsys.readouterr().err


# ------------------------------------------------------ old spellings: work, and warn
GATEWAY = ["--gateway", "http://127.0.0.1:1/v1"]
ALIASES = [  # command, what else it needs, the old spelling, the new one, the destination
    ("run", [], ["--report-dir", "r"], ["--out", "r"], "out"),
    ("run", [], ["--report-dir"], ["--out"], "out"),
    ("run", [], ["--no-linear-check"], ["--no-linear"], "no_linear"),
    ("merge", ["x.json"], ["--report-dir", "m"], ["--out", "m"], "out"),
    ("gateway audit", GATEWAY, ["--report-dir", "a"], ["--out", "a"], "out"),
    ("hunt", [], ["--save", "f"], ["--out", "f"], "out"),
    ("hunt", [], ["--no-linear-check"], ["--no-linear"], "no_linear"),
    ("hunt", [], ["--example-timeout", "3"], ["--timeout", "3"], "timeout"),
    ("fuzz", [], ["--save", "f"], ["--out", "f"], "out"),
    ("fuzz", [], ["--no-linear-check"], ["--no-linear"], "no_linear"),
    ("fuzz", [], ["--input-timeout", "3"], ["--timeout", "3"], "timeout"),
    ("mutate", [], ["--report", "m.md"], ["--out", "m.md"], "out"),
]


@pytest.mark.parametrize(("command", "needs", "old", "new", "dest"), ALIASES,
                         ids=[f"{c} {' '.join(o)}" for c, _, o, _, _ in ALIASES])
def test_an_old_spelling_means_the_same_and_names_the_new_one(capsys, command, needs, old,
                                                               new, dest):
    words = command.split()
    unset = getattr(build_parser().parse_args([*words, *needs]), dest)
    given = getattr(build_parser().parse_args([*words, *needs, *new]), dest)
    assert capsys.readouterr().err == ""  # the new spelling is quiet
    assert given != unset  # (the option does something)
    assert getattr(build_parser().parse_args([*words, *needs, *old]), dest) == given
    assert capsys.readouterr().err == (f"scrubcheck {command}: {old[0]} is deprecated; use "
                                       f"{new[0]} (same meaning)\n")


def test_run_with_the_old_spellings_writes_its_reports_where_it_was_told(capsys, tmp_path):
    """End to end: `--report-dir DIR --no-linear-check` still runs, writes, and warns."""
    code = main(["run", "--id", "blocks-in-list-items", "--jobs", "1", "--no-progress",
                 "--random-chunkings", "1", "--no-linear-check", "--report-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert (tmp_path / "report.json").is_file()
    assert "linear-time" not in out  # the check was really skipped
    assert "--report-dir is deprecated; use --out" in err
    assert "--no-linear-check is deprecated; use --no-linear" in err


# ------------------------------------------------------------------ the rest
def test_version_is_the_installed_distributions(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"scrubcheck {version('scrubcheck')}\n"
    assert scrubcheck.__version__ == version("scrubcheck")  # what the reports record agrees


def test_usage_errors_are_said_alike_by_every_command(capsys):
    assert usage_error("gateway", "choose an action") == 2
    assert capsys.readouterr().err == "scrubcheck gateway: choose an action\n"
    for command in ("peers", "gateways"):
        assert main([command]) == 2
        assert capsys.readouterr().err == f"scrubcheck {command}: choose an action: " \
                                          "install or list\n"


@pytest.mark.parametrize(("level", "code"), [(None, 0), ("must", 0), ("should", 1)])
def test_show_exits_as_run_does_at_each_level(capsys, level, code):
    """buffers_all fails only R-STREAM-2 (a SHOULD) under char: as in `run`, that is exit 0
    at the default level must and 1 at should."""
    argv = ["blocks-in-list-items", "--scrubber", BUFFERS_ALL, "--chunking", "char"]
    run_argv = ["--id", "blocks-in-list-items", "--scrubber", BUFFERS_ALL, "--jobs", "1",
                "--no-progress", "--no-linear", "--random-chunkings", "0"]
    extra = ["--level", level] if level else []
    assert main(["show", *argv, *extra]) == code
    out = capsys.readouterr().out
    assert "R-STREAM-2" in out and "SHOULD" in out
    assert main(["run", *run_argv, *extra]) == code


def test_lint_and_coverage_take_the_corpus_as_every_command_does(capsys):
    corpus = Path(__file__).resolve().parents[1] / "corpora" / "blocks.yaml"
    assert main(["lint", "--corpus", str(corpus)]) == main(["lint", str(corpus)]) == 0
    first, second = [line for line in capsys.readouterr().out.splitlines()
                     if not line.endswith("formats loaded, 0 errors")]
    assert first == second and first.startswith("1 files, ")
