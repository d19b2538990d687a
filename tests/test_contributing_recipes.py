"""CONTRIBUTING.md's five recipes work as written, and everything it names exists.

Each recipe is followed with a throwaway addition in tmp_path; the repository is never
edited. Its `scrubcheck` lines are read from the recipe's sh block, its capitals (NAME,
ID, ...) filled in with the throwaway's names, and the option that points a command at
something outside the repository appended, as CONTRIBUTING.md tells a contributor to
(`--corpus FILE`, `--formats FILE`, `peer:DIR/peer.toml`); a line that says `# exit N`
must exit N. A line the throwaway cannot follow (an install, a whole matrix, the
regeneration of the committed reports) is listed in SKIPPED with its reason, and every
other line is run, so a line added to a recipe is followed here or fails here. Lines
that are not `scrubcheck` (ruff, mypy, pytest) are not run; their files must exist.

The check recipe is what tests/test_new_check_recipe.py does with its throwaway check;
instead of doing it again, the recipe is compared with that test: its files with what
the test stands in for each, its commands with the test's `main([...])` calls.

The page as a whole: every path it names exists (a path with a capital placeholder: its
folder), every `scrubcheck COMMAND --option` is in the CLI's argparse, every
`scrubcheck.module:Attr` imports, the test command is README's, and every recipe ends
with `scrubcheck regenerate`, whose options are checked like any other command's.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import re
import shlex
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from bounded import scrubcheck as bounded_scrubcheck
from markdown_it import MarkdownIt

import scrubcheck.reports as reports
from scrubcheck.cli import build_parser, main
from scrubcheck.corpus import load_corpus
from scrubcheck.formats import registered_formats
from scrubcheck.gateway.audit_report import file_names as audit_file_names
from scrubcheck.matrix.rows import Row
from scrubcheck.matrix.runs import keep_run
from scrubcheck.peers.manifest import ManifestError, load_manifest
from scrubcheck.regenerate import TARGETS
from scrubcheck.reports import read_report

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "CONTRIBUTING.md"
README = ROOT / "README.md"
CHECK_TEST = ROOT / "tests" / "test_new_check_recipe.py"
#: the small shipped area the report recipe's `--id 'skip-*'` selects
SKIP_AREA = ROOT / "corpora" / "skip.yaml"
PLACEHOLDERS = ("NAME", "AREA", "ID", "LABEL", "BROKEN", "SPEC", "DIR", "FILE")
#: where CONTRIBUTING.md's commands write (gitignored): not expected to exist
OUTPUTS = ("build/", ".venv/")
#: options a test adds to stay quiet and fast; a recipe need not name them
TEST_ONLY = {"--no-progress", "--jobs", "--out"}
_PARSER = MarkdownIt("commonmark")


def _placeholder(name: str) -> str:
    """A capital placeholder inside a word: not part of a longer capital word
    (`test_reports_NAME.py`, `gen-split-feature-NAME-1`, but not `NAMES`)."""
    return rf"(?<![A-Za-z]){name}(?![A-Za-z])"


# ------------------------------------------------------------------ reading the page
@dataclass(frozen=True)
class Line:
    """One line of a recipe's sh block."""

    text: str
    argv: tuple[str, ...]  # shell words, comment dropped
    exit: int | None  # what its `# exit N` comment promises

    @property
    def is_scrubcheck(self) -> bool:
        return bool(self.argv) and self.argv[0] == "scrubcheck"

    @property
    def command(self) -> str:
        """`scrubcheck peers install NAME` -> 'peers install' (the words before options
        and placeholders)."""
        words = []
        for word in self.argv[1:]:
            if word.startswith("-") or not word.islower():
                break
            words.append(word)
        return " ".join(words[:2] if words[:1] in (["peers"], ["formats"]) else words[:1])


@dataclass(frozen=True)
class Recipe:
    number: int
    title: str
    files: tuple[str, ...]
    lines: tuple[Line, ...]

    def scrubcheck_lines(self) -> list[Line]:
        return [line for line in self.lines if line.is_scrubcheck]


def _line(text: str) -> Line:
    promised = re.search(r"#\s*exit (\d+)", text)
    return Line(text, tuple(shlex.split(text, comments=True)),
                int(promised.group(1)) if promised else None)


def recipes() -> dict[int, Recipe]:
    """The numbered sections of CONTRIBUTING.md: the paths of their **Files** list (the
    first code span of each bullet) and the lines of their **Commands** sh block."""
    text = DOC.read_text(encoding="utf-8")
    found = {}
    parts = re.split(r"^## (\d)\. (.+)$", text, flags=re.MULTILINE)
    for number, title, body in zip(parts[1::3], parts[2::3], parts[3::3], strict=True):
        files_part = body.split("**Files**", 1)[1].split("**Commands**", 1)[0]
        files = tuple(re.findall(r"^- `([^`]+)`", files_part, flags=re.MULTILINE))
        block = re.search(r"\*\*Commands\*\*.*?```sh\n(.*?)```", body, flags=re.DOTALL)
        assert block, f"recipe {number} has no sh block after **Commands**"
        lines = tuple(_line(t) for t in block.group(1).splitlines() if t.strip())
        found[int(number)] = Recipe(int(number), title.strip(), files, lines)
    return found


def code_texts() -> list[str]:
    """Every inline code span and every line of every code block of the page."""
    texts: list[str] = []
    stack = list(_PARSER.parse(DOC.read_text(encoding="utf-8")))
    while stack:
        token = stack.pop()
        stack.extend(token.children or ())
        if token.type == "code_inline":
            texts.append(token.content)
        elif token.type in ("fence", "code_block"):
            texts.extend(token.content.splitlines())
    return texts


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError:  # an unbalanced quote in prose: whitespace words will do
        return text.split()


def invocations() -> list[list[str]]:
    """Every `scrubcheck ...` the page writes, as its words after `scrubcheck`, up to a
    shell operator."""
    found = []
    for text in code_texts():
        words = _words(text)
        for index, word in enumerate(words):
            if word == "scrubcheck" or word.endswith("/scrubcheck"):
                rest = []
                for later in words[index + 1:]:
                    if later in ("&&", "||", "|", ";"):
                        break
                    rest.append(later)
                found.append(rest)
    return found


# ------------------------------------------------------------------ following a recipe
@dataclass
class Throwaway:
    """How one recipe's lines are filled in for a throwaway addition."""

    words: dict[str, str]  # placeholder -> value, inside any word (gen-split-feature-NAME-1)
    whole: dict[str, str] = field(default_factory=dict)  # a whole word -> value (a path)
    extra: dict[str, list[str]] = field(default_factory=dict)  # command -> words appended
    skipped: dict[str, str] = field(default_factory=dict)  # line prefix -> why not run

    def fill(self, line: Line) -> list[str]:
        argv = []
        for word in line.argv[1:]:
            word = self.whole.get(word, word)
            for name, value in self.words.items():
                word = re.sub(_placeholder(name), value, word)
            argv.append(word)
        return argv + self.extra.get(line.command, [])

    def skipped_as(self, line: Line) -> str | None:
        """The SKIPPED prefix that `line` starts with, if any."""
        return next((prefix for prefix in self.skipped
                     if " ".join(line.argv).startswith(prefix)), None)


def _in_process(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refused the line
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _in_subprocess(argv: list[str]) -> tuple[int, str]:
    done = bounded_scrubcheck(*argv, bound_s=120)
    return done.code, done.text


def follow(recipe: Recipe, throwaway: Throwaway, run_one) -> dict[str, tuple[int, str]]:
    """Every scrubcheck line of `recipe` run through `run_one`, filled in; each line's
    exit checked against its `# exit N`. Returns {line text: (exit, output)}."""
    outcomes = {}
    unused = set(throwaway.skipped)
    for line in recipe.scrubcheck_lines():
        if (prefix := throwaway.skipped_as(line)) is not None:
            unused.discard(prefix)
            continue
        argv = throwaway.fill(line)
        code, out = run_one(argv)
        if line.exit is not None:
            assert code == line.exit, (f"recipe {recipe.number}: {line.text.strip()}\n"
                                       f"ran as scrubcheck {shlex.join(argv)}\nexit {code}, "
                                       f"the recipe says {line.exit}:\n{out[-3000:]}")
        outcomes[line.text] = (code, out)
    assert not unused, f"recipe {recipe.number} no longer has the lines {sorted(unused)}"
    return outcomes


REGENERATION = "the committed reports are the repository's, not a throwaway's"


# ------------------------------------------------------------------ 1. a scenario
SCENARIO_ID = "contrib-split-close"
SCENARIO = f"""\
- id: {SCENARIO_ID}
  rules: [R-BLOCK-1, R-CHUNK-1]
  description: >-
    The close tag arrives split across two deltas, right after the reasoning.
  deltas: ["Sure. <think>weigh the two options care", "fully</thi", "nk>Take the second."]
  visible: "Sure. Take the second."
  reasoning: ["weigh the two options carefully"]
"""
TAGS_ONLY = "scrubcheck.scrubbers.broken.tags_only:TagsOnlyScrubber"


def test_the_scenario_recipe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A scenario in a tmp area file is linted, shown, passed by the reference and failed,
    as a leak, by the broken scrubber that removes only the tags."""
    corpus = tmp_path / "contrib.yaml"
    corpus.write_text(SCENARIO, encoding="utf-8")
    recipe = recipes()[1]
    assert recipe.files == ("corpora/AREA.yaml",)
    local = ["--corpus", str(corpus)]
    throwaway = Throwaway(
        words={"ID": SCENARIO_ID, "BROKEN": TAGS_ONLY},
        whole={"corpora/AREA.yaml": str(corpus)},
        extra={"show": local, "run": [*local, "--jobs", "1", "--no-progress"]},
        skipped={"scrubcheck regenerate": REGENERATION})
    outcomes = follow(recipe, throwaway, lambda argv: _in_process(argv, capsys))
    lint, show, passed, caught = outcomes.values()
    assert "1 files, 1 scenarios loaded, 0 errors" in lint[1]
    assert "verdict: PASS" in show[1] and "weigh·the·two·options·carefully" in show[1]
    assert "PASS 1  FAIL 0" in passed[1]
    assert "leaks: 1 scenario shows reasoning to the user" in caught[1]
    assert f"FAIL    {SCENARIO_ID} [leak]" in caught[1]


def test_a_broken_scenario_fails_the_recipe_s_lint(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The lint step can fail: reasoning that is not in the deltas is named with file,
    line and id, exit 2."""
    corpus = tmp_path / "contrib.yaml"
    corpus.write_text(SCENARIO.replace('["weigh the two', '["ponder the two'), encoding="utf-8")
    code, out = _in_process(["lint", str(corpus)], capsys)
    assert code == 2 and f"contrib.yaml:7 [{SCENARIO_ID}]" in out


# ------------------------------------------------------------------ 2. a model format
FORMAT_NAME = "contrib-acme"
FORMAT = f"""\
format: 1
name: {FORMAT_NAME}
title: A throwaway format for the contributing recipe
sources:
  - {{url: "https://example.org/contrib-acme", shows: "made up for a test"}}
generic: feature
case: exact
template: {{prefills_open: never, may_skip_reasoning: false}}
delimiters:
  - {{kind: special-token-pair, open: "<|acme_think|>", close: "<|acme_end|>"}}
"""


def _shipped_family(family_id: str) -> list[dict]:
    """One entry of the shipped corpora/generated.yaml, as it is there."""
    entries = yaml.safe_load((ROOT / "corpora" / "generated.yaml").read_text(encoding="utf-8"))
    return [entry for entry in entries if entry.get("id") == family_id]


def test_the_format_recipe(tmp_path: Path) -> None:
    """A format file passed with --formats is linted and shown; the shipped family that
    splits every feature delimiter generates its streams, which the reference passes
    (enabled as a feature, and in the format's own class) and passthrough leaks.
    Run as subprocesses: --formats changes the registry of the process it runs in."""
    fmt = tmp_path / f"{FORMAT_NAME}.yaml"
    fmt.write_text(FORMAT, encoding="utf-8")
    generated = tmp_path / "gen.yaml"
    generated.write_text(yaml.safe_dump(_shipped_family("gen-split-feature"), sort_keys=False),
                         encoding="utf-8")
    recipe = recipes()[2]
    assert recipe.files[0] == "formats/NAME.yaml"
    formats, corpus = ["--formats", str(fmt)], ["--corpus", str(generated)]
    throwaway = Throwaway(
        words={"NAME": FORMAT_NAME},
        extra={"lint": [*formats, str(generated)], "formats show": formats,
               "show": [*formats, *corpus],
               "run": [*formats, *corpus, "--jobs", "1", "--no-progress"]},
        skipped={"scrubcheck regenerate": REGENERATION})
    outcomes = list(follow(recipe, throwaway, _in_subprocess).values())
    lint, shown, split, feature, leaked, in_class = outcomes
    assert f"{len(registered_formats()) + 1} formats loaded, 0 errors" in lint[1]
    assert "special-token-pair <|acme_think|> … <|acme_end|>" in shown[1]
    assert "'<|acme_think|>' split after 1 of 14 characters" in split[1]
    assert re.search(r"^PASS (\d+)  FAIL 0$", feature[1], flags=re.MULTILINE)
    assert int(re.search(r"^PASS (\d+)", feature[1], flags=re.MULTILINE).group(1)) >= 20
    assert "leaks: 0 scenarios" not in leaked[1] and "[leak]" in leaked[1]
    assert "BEYOND CLAIM" in in_class[1]


def test_a_broken_format_fails_the_recipe_s_lint(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A delimiter that is a prefix of `<think>` is refused with its file and line."""
    fmt = tmp_path / f"{FORMAT_NAME}.yaml"
    fmt.write_text(FORMAT.replace("<|acme_think|>", "<thi"), encoding="utf-8")
    code, out = _in_process(["lint", "--formats", str(fmt), str(SKIP_AREA)], capsys)
    assert code == 2 and f"{fmt}:1:" in out and "'<thi' is a prefix of '<think>'" in out


# ------------------------------------------------------------------ 3. a check
def _check_test() -> ast.Module:
    return ast.parse(CHECK_TEST.read_text(encoding="utf-8"))


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) == name]


def _stand_ins(tree: ast.Module) -> dict[str, bool]:
    """What tests/test_new_check_recipe.py puts in place of each file of the recipe."""
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    declared = {target.id for node in tree.body if isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "") == "CheckName"
                for target in node.targets if isinstance(target, ast.Name)}
    # the throwaway's entry: the one the module defines (a test may build others)
    (entry,) = [node.value for node in tree.body if isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "") == "CheckEntry"]
    keywords = {k.arg: k.value for k in entry.keywords}
    return {
        # the module: its name (a CheckName of its own, so check_names.py is not
        # touched), the runs it plans and its judgement of their traces
        "suite/checks/NAME.py": getattr(entry.args[0], "id", None) in declared
        and all(getattr(keywords.get(k), "id", None) in functions for k in ("runs", "on_runs")),
        # the registry line: the entry, joined to the registry while a test runs
        "suite/checks/registry.py": bool(_calls(tree, "extended")),
    }


def _main_calls(tree: ast.Module) -> set[tuple[str, frozenset[str]]]:
    """(command, its options) of every `main([...])` the check test makes."""
    found = set()
    for call in _calls(tree, "main"):
        (argv,) = call.args
        assert isinstance(argv, ast.List)
        words = [e.value for e in argv.elts if isinstance(e, ast.Constant)]
        found.add((words[0], frozenset(w for w in words if w.startswith("--")) - TEST_ONLY))
    return found


def test_the_check_recipe_is_what_the_new_check_test_does() -> None:
    """The recipe's files are the two the check test stands in for (its CheckName, the
    planner and the judgement for the module, `extended` for the registry line), and its
    scrubcheck commands are the test's `main([...])` calls."""
    recipe = recipes()[3]
    source_files = {f for f in recipe.files if not f.startswith("tests/")}
    stand_ins = _stand_ins(_check_test())
    assert source_files == set(stand_ins), (source_files, set(stand_ins))
    assert all(stand_ins.values()), f"{CHECK_TEST.name} no longer stands in for {stand_ins}"
    commands = {(line.argv[1], frozenset(w for w in line.argv if w.startswith("--")))
                for line in recipe.scrubcheck_lines() if line.command != "regenerate"}
    assert commands == _main_calls(_check_test())


# ------------------------------------------------------------------ 4. a peer
PEER_NAME = "contrib-regex"
PEER_TOML = f"""\
name = "{PEER_NAME}"
title = "A throwaway peer: one regular expression over the whole text"
kind = "batch scrubber"
entry = "adapter.strip"
program = "adapter.py"
features = []
context = []
"""
PEER_PROGRAM = '''\
"""A throwaway peer: removes closed <think> blocks from the whole text at flush()."""
import os
import re
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402

BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL)


def open_stream(context):
    return lambda text: BLOCK.sub("", text)


serve(open_stream, kind="batch", package=None)
'''
PEER_CORPUS = """\
- id: contrib-peer-plain
  rules: [R-FID-1]
  description: An answer with no reasoning at all comes out as it is.
  deltas: ["The train ", "leaves at ten."]
  visible: "The train leaves at ten."
  reasoning: []
- id: contrib-peer-unclosed
  rules: [R-UNCLOSED-1]
  description: A block still open when the stream ends is discarded.
  deltas: ["Answer first. <think>still weighing ", "the timetable options"]
  visible: "Answer first. "
  reasoning: ["still weighing the timetable options"]
"""


def test_the_peer_recipe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A peer program written to tmp (the peerloop of docs/protocol.md around a regular
    expression) with its peer.toml loads as a manifest, is shown passing a plain answer
    and is run on two scenarios: it leaks the unclosed block."""
    folder = tmp_path / PEER_NAME
    folder.mkdir()
    (folder / "peer.toml").write_text(PEER_TOML, encoding="utf-8")
    (folder / "adapter.py").write_text(PEER_PROGRAM, encoding="utf-8")
    corpus = tmp_path / "peer-area.yaml"
    corpus.write_text(PEER_CORPUS, encoding="utf-8")
    recipe = recipes()[4]
    assert recipe.files[:2] == ("scrubbers/peers/NAME/peer.toml", "scrubbers/peers/NAME/adapter.py")
    manifest = load_manifest(folder / "peer.toml")  # what `peers list` does to each manifest
    assert (manifest.name, manifest.program) == (PEER_NAME, folder / "adapter.py")
    local = ["--corpus", str(corpus)]
    throwaway = Throwaway(
        words={"ID": "contrib-peer-plain"},
        whole={"peer:NAME": f"peer:{folder / 'peer.toml'}"},
        extra={"show": local,
               "run": [*local, "--id", "contrib-peer-unclosed", "--jobs", "1",
                       "--no-progress", "--out", str(tmp_path / "out")]},
        skipped={"scrubcheck peers install": "the throwaway has no [package] to install",
                 "scrubcheck peers list": "it lists the shipped peers; load_manifest above "
                                          "is its check of each",
                 "scrubcheck matrix": "the matrix names shipped peers and runs the whole "
                                      "corpus",
                 "scrubcheck regenerate": REGENERATION})
    (shown, ran) = follow(recipe, throwaway, lambda argv: _in_process(argv, capsys)).values()
    assert shown[0] == 0 and "verdict: PASS" in shown[1], shown[1][-2000:]
    assert ran[0] == 1, ran[1][-2000:]
    verdicts = {r.scenario_id: r.outcome.value
                for r in read_report(tmp_path / "out" / "report.json").results}
    assert verdicts == {"contrib-peer-plain": "PASS", "contrib-peer-unclosed": "FAIL"}
    assert "leaks: 1 scenario shows reasoning to the user" in ran[1]


def test_a_peer_manifest_mistake_names_the_file_and_key(tmp_path: Path) -> None:
    folder = tmp_path / PEER_NAME
    folder.mkdir()
    (folder / "peer.toml").write_text(PEER_TOML + 'colour = "blue"\n', encoding="utf-8")
    (folder / "adapter.py").write_text(PEER_PROGRAM, encoding="utf-8")
    with pytest.raises(ManifestError, match=r"peer\.toml.*colour"):
        load_manifest(folder / "peer.toml")


# ------------------------------------------------------------------ 5. a report format
WRITER = '''\
"""A throwaway report: one line per scenario, its id and verdict."""

from pathlib import Path


def write_csv(run, path: Path) -> Path:
    rows = ["scenario,verdict"] + [f"{r.scenario_id},{r.outcome.value}" for r in run.results]
    path.write_text("\\n".join(rows) + "\\n", encoding="utf-8")
    return path
'''


@pytest.fixture
def csv_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The throwaway writer module, loaded from tmp_path and given its two entries in
    suite/reports/__init__.py, as the recipe says. `FORMATS` and write_reports' default
    are computed from FILE_NAMES when that file is imported, so the test sets them as
    the edited file would."""
    path = tmp_path / "csv_report.py"
    path.write_text(WRITER, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("csv_report", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(reports.FILE_NAMES, "csv", "report.csv")
    monkeypatch.setitem(reports.WRITERS, "csv", module.write_csv)
    monkeypatch.setattr(reports, "FORMATS", tuple(reports.FILE_NAMES))
    monkeypatch.setattr(reports.write_reports, "__defaults__", (tuple(reports.FILE_NAMES),))
    return "csv"


def _csv_rows(folder: Path) -> dict[str, str]:
    lines = (folder / "report.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "scenario,verdict"
    return dict(line.split(",") for line in lines[1:])


def test_the_report_format_recipe(csv_writer: str, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """With its two registry entries the writer's file is written by each shard's run
    and by their merge, and by the matrix beside each row's report.json, never beside
    matrix.md; the gateway audit keeps a list of its own."""
    monkeypatch.chdir(tmp_path)  # the recipe's build/ paths are relative
    recipe = recipes()[5]
    assert recipe.files[:2] == ("suite/reports/NAME.py", "suite/reports/__init__.py")
    throwaway = Throwaway(
        words={"NAME": csv_writer},
        extra={"run": ["--corpus", str(SKIP_AREA), "--jobs", "1",
                       "--no-progress"]},
        skipped={"scrubcheck matrix": "the matrix always loads the whole corpus and "
                                      "measures linear time; keep_run below is what it "
                                      "does with each row's run",
                 "scrubcheck regenerate": REGENERATION})
    follow(recipe, throwaway, lambda argv: _in_process(argv, capsys))
    build = tmp_path / "build" / csv_writer
    merged = read_report(build / "merged" / "report.json")
    shards = {**_csv_rows(build / "1"), **_csv_rows(build / "2")}
    assert _csv_rows(build / "merged") == shards == {
        r.scenario_id: r.outcome.value for r in merged.results}
    assert set(shards) == {s.id for s in load_corpus([SKIP_AREA]).scenarios}
    row = Row("reference", "reference", "scrubber", "scrubcheck", "", "reference", "ran")
    keep_run(row, merged, build / "matrix")
    assert _csv_rows(build / "matrix" / "peers" / "reference") == shards
    assert "csv" not in audit_file_names()


# ------------------------------------------------------------------ the page as a whole
def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    return {s for action in parser._actions for s in action.option_strings}


def _option(word: str) -> str | None:
    found = re.match(r"^\[?(--[a-z][a-z0-9-]*)", word)
    return found.group(1) if found else None


def unknown_options(argvs: Sequence[Sequence[str]], pending: Sequence[str] = ()
                    ) -> list[str]:
    """Each `scrubcheck` invocation whose command or option the CLI does not have;
    commands in `pending` are left out."""
    top = build_parser()
    problems = []
    for argv in argvs:
        parser, path = top, ["scrubcheck"]
        for word in argv:
            option = _option(word)
            choices = _subparsers(parser)
            if option is not None:
                if option not in _option_strings(parser):
                    problems.append(f"{' '.join(path)} has no {option}")
            elif word in pending and parser is top:
                break
            elif choices and word in choices:
                parser, path = choices[word], [*path, word]
            elif choices and parser is top and not any(p in word for p in PLACEHOLDERS):
                problems.append(f"scrubcheck has no command {word!r}")
                break
    return problems


def test_every_scrubcheck_command_and_option_the_page_names_exists() -> None:
    argvs = invocations()
    assert len(argvs) > 30, "the page's commands were not found"
    assert unknown_options(argvs) == []
    regenerate = [argv for argv in argvs if argv[:1] == ["regenerate"]]
    assert regenerate, "the page never says scrubcheck regenerate"
    known = {t.name for t in TARGETS}
    for argv in regenerate:
        for index, word in enumerate(argv[:-1]):
            if word.strip("[") == "--only":
                assert set(argv[index + 1].strip("[]").split(",")) <= known, argv


def test_the_option_check_can_fail() -> None:
    assert unknown_options([["run", "--colour"], ["frobnicate"], ["peers", "install",
                                                                  "--force"]]) == [
        "scrubcheck run has no --colour", "scrubcheck has no command 'frobnicate'"]
    assert unknown_options([["regenerate", "--check"]], ("regenerate",)) == []


def _is_path(word: str) -> bool:
    if re.match(r"^[a-z]+://|^\d+/\d+$", word) or word.startswith(("~", "$", "-", "<")):
        return False
    if "/" in word:
        return bool(re.match(r"^[\w.][\w.*/-]*$", word))
    return bool(re.match(r"^\.?[\w-]+\.(md|py|yaml|toml|json|mjs|xml|html)$", word)
                or word in (".importlinter",))


def _repository_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                            check=False).stdout.split()
    return listed or [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]


def missing_paths(words: Sequence[str], files: Sequence[str]) -> list[str]:
    """The words naming a path that is not in the repository: a path from the root
    (a path with a placeholder: its folder before the placeholder), a bare file name
    anywhere (`peer.toml`), a glob matching something."""
    names = {Path(f).name for f in files}
    missing = []
    for word in words:
        word = word.removeprefix("peer:").rstrip(".,:;)")
        if not _is_path(word) or word.startswith(OUTPUTS):
            continue
        parts = word.split("/")
        fixed = []
        for part in parts:
            if any(re.search(_placeholder(p), part) for p in PLACEHOLDERS):
                break
            fixed.append(part)
        else:
            if "/" not in word:
                if word not in names and not (ROOT / word).exists():
                    missing.append(word)
                continue
            if "*" in word:
                if not list(ROOT.glob(word)):
                    missing.append(word)
            elif not (ROOT / word).exists():
                missing.append(word)
            continue
        if fixed and not (ROOT / "/".join(fixed)).is_dir():
            missing.append(word)
    return missing


def test_every_path_the_page_names_exists() -> None:
    words = [w for text in code_texts() for w in _words(text)]
    files_listed = [f for recipe in recipes().values() for f in recipe.files]
    assert missing_paths([*words, *files_listed], _repository_files()) == []


def test_the_path_check_can_fail() -> None:
    files = ["suite/cli.py", "formats/think.yaml"]
    assert missing_paths(["suite/nope.py", "nowhere/NAME.yaml", "formats/NAME.yaml",
                          "peer.toml", "think.yaml", "build/x/y", "peer:DIR/peer.toml"],
                         files) == ["suite/nope.py", "nowhere/NAME.yaml", "peer.toml"]


def test_every_scrubber_spec_the_page_names_imports() -> None:
    specs = {w for text in code_texts() for w in _words(text)
             if re.match(r"^scrubcheck(\.\w+)+(:\w+)?$", w)}
    assert specs, "the page names no scrubcheck.module:Attr"
    for spec in specs:
        module, _, attr = spec.partition(":")
        loaded = importlib.import_module(module)
        assert not attr or hasattr(loaded, attr), spec


def _readme_test_command() -> str:
    text = README.read_text(encoding="utf-8")
    block = text.split("<!-- test-command -->", 1)[1].split("<!-- /test-command -->", 1)[0]
    return block.strip().removeprefix("```sh").removesuffix("```").strip()


def fenced_blocks() -> list[str]:
    """The content of every fenced code block of the page, whole."""
    return [token.content.strip() for token in _PARSER.parse(DOC.read_text(encoding="utf-8"))
            if token.type == "fence"]


def test_the_test_command_is_readme_s() -> None:
    command = _readme_test_command()
    assert command.startswith("python3 -m venv") and "pytest" in command
    assert command in fenced_blocks(), "CONTRIBUTING.md's test command is not README's"


def test_readme_links_the_page() -> None:
    assert "](CONTRIBUTING.md)" in README.read_text(encoding="utf-8")


#: the steps in the order the page promises: lint, show, run, tests, regenerate last
PHASES = {"install": 0, "lint": 1, "show": 2, "run": 3, "tests": 4, "regenerate": 5}


def _phase(line: Line) -> str:
    if line.argv[0] in ("ruff",) or line.argv[:2] == ("python", "tests/test_typing.py"):
        return "lint"
    if line.argv[0] == "pytest":
        return "tests"
    return {"lint": "lint", "peers list": "lint", "peers install": "install",
            "formats show": "show", "show": "show", "run": "run", "merge": "run",
            "matrix": "run", "regenerate": "regenerate"}[line.command]


def test_each_recipe_names_files_and_runs_its_steps_in_order_ending_with_regenerate() -> None:
    found = recipes()
    assert list(found) == [1, 2, 3, 4, 5]
    for recipe in found.values():
        assert recipe.files, f"recipe {recipe.number} names no file"
        phases = [_phase(line) for line in recipe.lines]
        assert phases == sorted(phases, key=PHASES.__getitem__), (recipe.number, phases)
        assert {"run", "tests"} <= set(phases), (recipe.number, phases)
        assert recipe.lines[-1].argv[:2] == ("scrubcheck", "regenerate"), recipe.number
        assert phases.count("regenerate") == 1

