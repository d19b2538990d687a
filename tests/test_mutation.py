"""`scrubcheck mutate`: the sampler, the stable ids, the oracle, the equivalents file and
the report.

The oracle runs are on one or two scenarios each, so the file stays well under a
minute; the one real session (`reports/mutation.md`) is not rerun here.
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray")

from scrubcheck.cli import main  # noqa: E402
from scrubcheck.corpus import load_corpus, select  # noqa: E402
from scrubcheck.mutation.equivalents import EquivalentsError, load_equivalents  # noqa: E402
from scrubcheck.mutation.mutants import Mutant, Site, mutant_id, population  # noqa: E402
from scrubcheck.mutation.oracle import MutantFate, Oracle, OracleError  # noqa: E402
from scrubcheck.mutation.report_md import render  # noqa: E402
from scrubcheck.mutation.session import (  # noqa: E402
    CONTRADICTED,
    EQUIVALENT,
    KILLED,
    SURVIVED,
    Judged,
    Session,
    reference_package,
    run_session,
)
from scrubcheck.runner import RunSettings  # noqa: E402

PACKAGE, ATTR = reference_package()
#: two scenarios on which four leading spaces do not open a fence (a tag after them is real)
FOUR_SPACES = ["code-fence-four-space-fence-line-not-a-fence",
               "code-indented-four-spaces-not-a-guard"]


def _scenarios(ids: list[str]):
    chosen = select(load_corpus(None).scenarios, ids=ids)
    assert sorted(s.id for s in chosen) == sorted(ids), "the test's scenarios left the corpus"
    return chosen


def _oracle(ids: list[str], **kwargs) -> Oracle:
    settings = RunSettings(jobs=1, random_count=1, linear_check=False, level="should",
                           timeout_s=30)
    return Oracle(_scenarios(ids), settings, **kwargs)


def _hand_mutant(file: str, code: str, note: str) -> Mutant:
    """A mutant made by hand (not by an operator), with an id of its own."""
    site = Site(file, "test/hand", 0, 1, 0, "<module>")
    return Mutant(site, code, ("",), (note,), diff=f"+{note}\n")


# -- sampling and ids -------------------------------------------------------------------
@pytest.fixture(scope="module")
def reference_population():
    return population(PACKAGE)


def test_the_sample_is_the_same_for_a_seed_and_another_for_another_seed(reference_population):
    first = reference_population.sample(6, seed=11)
    again = reference_population.sample(6, seed=11)
    other = reference_population.sample(6, seed=12)
    ids = [m.id for m in first.mutants]
    assert ids == [m.id for m in again.mutants]
    assert ids != [m.id for m in other.mutants]
    assert len(set(ids)) == 6
    # in population order, and each one a real program that differs from the source
    positions = [reference_population.sites.index(m.site) for m in first.mutants]
    assert positions == sorted(positions)
    for mutant in first.mutants:
        assert mutant.problem(reference_population.files[mutant.site.file].code) is None


def test_the_population_covers_every_module_but_init(reference_population):
    files = reference_population.per_file()
    assert "__init__.py" not in files
    assert {"scrubber.py", "tables.py", "spans.py"} <= set(files)
    assert all(count > 0 for count in files.values())


def test_an_id_survives_an_edit_above_the_mutation(tmp_path):
    source = (PACKAGE / "spans.py").read_text(encoding="utf-8")
    (tmp_path / "spans.py").write_text(source, encoding="utf-8")
    before = population(tmp_path, ["spans.py"])
    site = next(s for s in before.sites
                if s.operator.endswith("ReplaceComparisonOperator_Eq_NotEq"))
    mutant = before.mutant(site)
    (tmp_path / "spans.py").write_text("# a new first line\n\n" + source, encoding="utf-8")
    after = population(tmp_path, ["spans.py"])
    moved = after.find([mutant.id])[mutant.id]
    assert moved.site.line == site.line + 2
    assert moved.change == mutant.change


def test_annotations_are_left_out_only_where_they_are_never_evaluated(tmp_path):
    body = "def f(x: int | None) -> int | None:\n    return x | 1\n"
    (tmp_path / "lazy.py").write_text("from __future__ import annotations\n\n" + body)
    (tmp_path / "eager.py").write_text(body)
    pop = population(tmp_path)
    assert pop.annotation_sites["lazy.py"] > 0 and pop.annotation_sites["eager.py"] == 0
    lazy = [s for s in pop.sites if s.file == "lazy.py" and "BitOr" in s.operator]
    assert lazy and all(s.line == 4 for s in lazy)  # only `x | 1` in the body


def test_a_site_whose_mutant_does_not_compile_is_passed_over_and_counted(tmp_path):
    # cosmic-ray also replaces the bare `*` of a parameter list, which is no program
    (tmp_path / "star.py").write_text("def f(a, *, b):\n    return a * b\n")
    sample = population(tmp_path).sample(1000, seed=0)
    assert sample.passed_over and all("does not compile" in why for _, why in sample.passed_over)
    assert all(m.problem((tmp_path / "star.py").read_text()) is None for m in sample.mutants)
    assert {m.mutated for m in sample.mutants} >= {("return a + b",)}


# -- the oracle -------------------------------------------------------------------------
def test_a_known_killable_mutant_is_killed_and_the_original_survives(reference_population,
                                                                     tmp_path):
    site = next(
        s for s in reference_population.sites
        if s.operator.endswith("ReplaceComparisonOperator_GtE_Gt")
        and reference_population.files[s.file].lines()[s.line - 1].strip()
        == "if cur.indent >= 4:"
    )
    mutant = reference_population.mutant(site)  # four leading spaces would open a fence
    oracle = _oracle(FOUR_SPACES)
    baseline = oracle.baseline(PACKAGE, ATTR, tmp_path)
    assert not baseline.killed and baseline.scenarios_run == 2
    assert set(oracle.baseline_s) == set(FOUR_SPACES)
    verdict = oracle.judge(PACKAGE, {site.file: mutant.code}, ATTR, tmp_path, name="m_lt")
    assert verdict.killed and verdict.how == "leak" and verdict.scenario in FOUR_SPACES
    assert not list(tmp_path.iterdir())  # each mutant's copy is removed after its run


def test_a_hanging_mutant_is_killed_by_the_timeout_and_one_that_cannot_load(tmp_path):
    code = (PACKAGE / "scrubber.py").read_text(encoding="utf-8")
    hang = code + textwrap.dedent("""
        def _hang(self, delta):
            while True:
                pass

        ReferenceScrubber.feed = _hang
        """)
    oracle = _oracle(FOUR_SPACES[:1], min_timeout_s=1.0, timeout_factor=1.0)
    oracle.baseline(PACKAGE, ATTR, tmp_path)
    started = time.monotonic()
    verdict = oracle.judge(PACKAGE, {"scrubber.py": hang}, ATTR, tmp_path, name="m_hang")
    assert verdict.killed and verdict.how == "timeout"
    assert time.monotonic() - started < 30
    broken = oracle.judge(PACKAGE, {"scrubber.py": code + "\nraise RuntimeError('no')\n"},
                          ATTR, tmp_path, name="m_load")
    assert broken.killed and broken.how == "load" and "RuntimeError" in broken.detail


def test_a_reference_that_fails_its_own_oracle_stops_the_session(tmp_path):
    code = (PACKAGE / "scrubber.py").read_text(encoding="utf-8")
    oracle = _oracle(FOUR_SPACES[:1])
    leaky = code + "\nReferenceScrubber.feed = lambda self, delta: delta\n"
    package = tmp_path / "pkg"
    package.mkdir()
    for path in PACKAGE.glob("*.py"):
        (package / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (package / "scrubber.py").write_text(leaky, encoding="utf-8")
    with pytest.raises(OracleError, match="unmutated reference fails"):
        oracle.baseline(package, ATTR, tmp_path)


# -- equivalents ------------------------------------------------------------------------
def _entry(mutant: Mutant, reason: str = "adds a name nothing reads") -> str:
    return textwrap.dedent(f"""\
        - id: "{mutant.id}"
          file: {mutant.site.file}
          scope: "{mutant.site.scope}"
          operator: {mutant.site.operator}
          original: {list(mutant.original)!r}
          mutated: {list(mutant.mutated)!r}
          reason: {reason}
        """)


def test_an_equivalent_is_recognised_only_through_the_data_file(tmp_path):
    code = (PACKAGE / "tables.py").read_text(encoding="utf-8")
    unused = _hand_mutant("tables.py", code + "\n_NEVER_READ = 1\n", "_NEVER_READ = 1")
    leaky = _hand_mutant("scrubber.py", (PACKAGE / "scrubber.py").read_text(encoding="utf-8")
                         + "\nReferenceScrubber.feed = lambda self, delta: delta\n", "leak")
    pop = population(PACKAGE, ["tables.py", "scrubber.py"])
    data = tmp_path / "equivalents.yaml"
    data.write_text(_entry(unused) + _entry(leaky, "wrongly argued"), encoding="utf-8")
    for equivalents, expected in (({}, [SURVIVED, KILLED]),
                                  (load_equivalents(data), [EQUIVALENT, CONTRADICTED])):
        session = run_session(pop, [unused, leaky], _oracle(FOUR_SPACES[:1]), seed=0,
                              equivalents=equivalents, attr=ATTR,
                              say=lambda line: None)
        assert [j.category for j in session.judged] == expected
    assert session.kill_rate == 1.0  # the contradicted entry counts as killed
    assert session.non_equivalent == 1


@pytest.mark.parametrize("change, message", [
    (lambda text: text.replace("reason: ok", "reason: ok\n  colour: red"), "unknown key colour"),
    (lambda text: text.replace("  reason: ok\n", ""), "missing reason"),
    (lambda text: text.replace("x = 1", "x = 2", 1), "does not match"),
    (lambda text: text + text, "duplicate id"),
    (lambda text: text.replace("- id:", "- id: [", 1), "YAML"),
])
def test_a_malformed_equivalents_file_names_the_file_and_line(tmp_path, change, message):
    original, mutated = ("x = 1",), ("x = 2",)
    ident = mutant_id("a.py", "f", "core/NumberReplacer", original, mutated)
    text = textwrap.dedent(f"""\
        - id: "{ident}"
          file: a.py
          scope: f
          operator: core/NumberReplacer
          original: "x = 1"
          mutated: "x = 2"
          reason: ok
        """)
    path = tmp_path / "eq.yaml"
    path.write_text(text)
    assert list(load_equivalents(path)) == [ident]
    path.write_text(change(text))
    with pytest.raises(EquivalentsError, match=message) as caught:
        load_equivalents(path)
    assert str(caught.value).startswith(f"{path}:")


def test_the_shipped_equivalents_file_is_valid_and_argues_every_entry():
    path = PACKAGE / "mutation-equivalents.yaml"
    entries = load_equivalents(path)
    assert path.exists()
    assert all(len(e.reason) > 40 for e in entries.values())


# -- the report -------------------------------------------------------------------------
def test_the_report_shows_rate_per_file_counts_survivor_diffs_and_reasons(tmp_path):
    (tmp_path / "m.py").write_text("def f(a, b):\n    return a < b\n")
    pop = population(tmp_path)
    mutants = pop.sample(3, seed=0).mutants
    oracle = Oracle([], RunSettings(jobs=2, random_count=2))
    session = Session(pop, seed=7, oracle=oracle,
                      baseline=MutantFate("survived", scenarios_run=9, seconds=1.5))
    session.judged = [
        Judged(mutants[0], MutantFate("killed", "leak", "some-scenario", "R-LEAK-1", 4, 0.5)),
        Judged(mutants[1], MutantFate("survived", scenarios_run=9, seconds=2.0)),
        Judged(mutants[2], MutantFate("survived", scenarios_run=9, seconds=2.0),
               equivalent=load_equivalents(_write(tmp_path, _entry(mutants[2], "because |"))
                                           )[mutants[2].id]),
    ]
    session.wall_s = 6.0
    text = render(session, command="scrubcheck mutate --seed 7", goal=0.95)
    assert "**Kill rate: 50.0%**: the corpus run killed 1 of the 2 non-equivalent" in text
    assert "NOT met" in text and "seed 7" in text
    row = next(line for line in text.splitlines() if line.startswith("| m.py "))
    assert [c.strip() for c in row.strip("|").split("|")] == [
        "m.py", str(len(pop.sites)), "3", "1", "1", "1", "0"]
    survivors = text.split("## Survivors")[1].split("## Equivalent mutants")[0]
    assert mutants[1].id in survivors and "```diff\n--- a/m.py" in survivors
    assert mutants[0].id not in survivors
    equivalents = text.split("## Equivalent mutants")[1].split("## Every sampled mutant")[0]
    assert mutants[2].id in equivalents and "because |" in equivalents
    assert "Killed by: leak 1" in text and "Total wall time: 6 s" in text
    assert "mean 1.5 s" in text and "max 2.0 s" in text
    table = text.split("## Every sampled mutant")[1]
    assert table.count("\n| ") == 4  # header and one row per mutant
    assert "leak: `some-scenario`" in table


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "eq.yaml"
    path.write_text(text)
    return path


# -- the command ------------------------------------------------------------------------
def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["mutate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_prints_the_sample_and_usage_errors_exit_2(capsys):
    code, out, err = _cli(capsys, "--list", "--sample", "3", "--seed", "5")
    assert code == 0, err
    assert len(out.splitlines()) == 3
    modules = {p.name for p in PACKAGE.glob("*.py")} - {"__init__.py"}
    assert all(line.split(":")[0] in modules for line in out.splitlines())
    for args, message in ((["--file", "nosuch.py"], "not in"),
                          (["--mutant", "spans.py:f:X:00000000"], "no such mutant"),
                          (["--sample", "0"], "at least 1")):
        code, _, err = _cli(capsys, *args)
        assert code == 2 and message in err, err


def test_a_run_on_a_selection_writes_the_report_it_is_asked_for(capsys, tmp_path):
    report = tmp_path / "mutation.md"
    code, out, err = _cli(capsys, "--sample", "2", "--seed", "4", "--id", FOUR_SPACES[0],
                          "--jobs", "1", "--out", str(report))
    assert code in (0, 1), err
    assert "baseline: passed" in out and "[2/2]" in out
    assert report.read_text().startswith("# Mutation testing of the reference scrubber")
