"""scrubcheck hunt: properties, the Hypothesis loop, findings as lintable scenarios."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase

from scrubcheck.adapters import load_adapter
from scrubcheck.adapters.stream import StreamAdapter
from scrubcheck.commands import hunt as hunt_command
from scrubcheck.commands import lint as lint_command
from scrubcheck.corpus import load_corpus
from scrubcheck.corpus.yamlwriter import quote
from scrubcheck.generate import canary
from scrubcheck.generate.stream_model import CANARY, Answer, Block, Reasoning, StreamModel, render
from scrubcheck.hunt import Finding, HuntSettings, Violation, first_violation, hunt
from scrubcheck.hunt.as_scenario import finding_yaml
from scrubcheck.hunt.case import Case
from scrubcheck.hunt.database import KeepFailures
from scrubcheck.hunt.findings_output import save_findings
from scrubcheck.hunt.sandbox import Sandbox
from scrubcheck.hunt.shrink import shrink_choices, shrink_deltas
from scrubcheck.model import Context
from scrubcheck.scrubbers.broken import BROKEN

C0, C1 = canary(0), canary(1)


def structured(text_parts, context=None, deltas=None):  # type: ignore[no-untyped-def]
    """A case for a hand-written stream: ("a", ("<think>", C0, "</think>"), "b")."""
    context = context or Context()
    items = []
    for part in text_parts:
        if isinstance(part, tuple):
            items.append(Block(part[0], Reasoning(((CANARY, part[1]),)), part[2]))
        else:
            items.append(Answer(part))
    stream = render(StreamModel(context, items=tuple(items)))
    assert stream.ok, stream.problem
    parts = tuple(deltas) if deltas else (stream.text,)
    return Case(context, parts, tuple(stream.text), len(stream.text) // 2, stream)


def quick(**overrides) -> HuntSettings:  # type: ignore[no-untyped-def]
    options = dict(seconds=6.0, seed=3, database="memory", linear=False)
    options.update(overrides)
    return HuntSettings(**options)


# -- properties on hand-written cases ----------------------------------------------------
def test_the_reference_satisfies_every_property_on_a_plain_case():
    case = structured(["Hi ", ("<think>", C0, "</think>"), "there"],
                      deltas=["Hi <thi", "nk>", C0, "</think>there"])
    assert first_violation(load_adapter("reference"), case) is None


def test_a_split_tag_leak_is_found_and_names_its_partition():
    case = structured(["Hi ", ("<think>", C0, "</think>"), "there"],
                      deltas=["Hi <thi", "nk>" + C0 + "</think>there"])
    violation = first_violation(load_adapter(BROKEN["stateless"]), case)
    assert violation is not None
    assert (violation.check, violation.rule) == ("no-leak", "R-LEAK-1")
    assert violation.deltas == case.deltas
    assert C0 in violation.detail


def test_known_failures_are_skipped_so_the_next_one_shows():
    case = structured(["Hi ", ("<think>", C0, "</think>"), "there"],
                      deltas=["Hi <thi", "nk>" + C0 + "</think>there"])
    adapter = load_adapter(BROKEN["stateless"])
    second = first_violation(adapter, case, known={("no-leak", "R-LEAK-1")})
    assert second is not None and second.signature != ("no-leak", "R-LEAK-1")


# -- the sandbox: the scrubber's own process ---------------------------------------------
HOSTILE = Path(__file__).resolve().parent / "data" / "hostile" / "hostile_scrubbers.py"
BLOCK = structured(["Hi ", ("<think>", C0, "</think>"), "there"])
PLAIN = structured(["Hi there"])


class PrintsThenSleeps:
    """Prints on every delta, then hangs on the trigger (the tail must reach the finding)."""

    def feed(self, delta: str) -> str:
        print("noise before the hang", delta)
        if "<think>" in delta:
            time.sleep(3600)
        return delta

    def flush(self) -> str:
        return ""


def test_a_hang_becomes_a_timeout_violation_within_the_wall_clock_limit():
    case = structured(["if a < b then ", ("<think>", C0, "</think>"), "ok"])
    with Sandbox(load_adapter(BROKEN["hangs"])) as sandbox:
        began = time.monotonic()
        violation = sandbox.check(case, (), timeout=0.5)
        assert time.monotonic() - began < 10  # a generous bound on a 0.5 s limit
    assert violation is not None and violation.check == "timeout"
    assert violation.rule == "R-ROBUST-1" and violation.deltas == case.deltas
    assert "no answer within 0.5 s (wall clock)" in violation.detail


def test_a_sleep_no_signal_interrupts_is_cut_at_the_limit_and_its_output_quoted():
    adapter = StreamAdapter("test:PrintsThenSleeps", "PrintsThenSleeps", PrintsThenSleeps)
    with Sandbox(adapter) as sandbox:
        violation = sandbox.check(structured(["Hi ", ("<think>", C0, "</think>")],
                                             deltas=["Hi ", "<think>" + C0 + "</think>"]),
                                  (), timeout=0.5)
        assert violation is not None and violation.check == "timeout"
        assert "it printed" in violation.detail and "noise before the hang" in violation.detail
        assert sandbox.check(PLAIN, (), timeout=5) is None  # a fresh child answers at once
        assert sandbox.starts == 2


@pytest.mark.parametrize(("name", "status"), [("Segfaults", "killed by signal SIGSEGV"),
                                              ("Exits", "exit code 3")])
def test_a_crash_is_a_violation_and_the_next_case_gets_a_fresh_process(name, status):
    with Sandbox(load_adapter(f"{HOSTILE}:{name}")) as sandbox:
        crash = sandbox.check(BLOCK, (), timeout=10)
        assert crash is not None and crash.check == "crash" and status in crash.detail
        assert sandbox.check(BLOCK, {crash.signature}, timeout=10) is None  # known: quiet
        assert sandbox.check(PLAIN, (), timeout=10) is None  # plain text passes through
        assert sandbox.starts == 3


def test_a_memory_limit_turns_runaway_allocation_into_a_named_memoryerror():
    with Sandbox(load_adapter(f"{HOSTILE}:Allocates"), memory_limit=256 << 20) as sandbox:
        violation = sandbox.check(BLOCK, (), timeout=30)
    assert violation is not None and violation.check == "robust"
    assert "MemoryError" in violation.detail and "memory limit of 256 MiB" in violation.detail


def test_what_the_scrubber_prints_never_reaches_this_process(capfd):
    with Sandbox(load_adapter(f"{HOSTILE}:Prints")) as sandbox:
        violation = sandbox.check(BLOCK, (), timeout=10)
    assert violation is not None and violation.check == "no-leak"
    captured = capfd.readouterr()
    assert "scrubber noise" not in captured.out + captured.err


def test_the_linear_measurement_is_bounded_and_a_hang_in_it_is_reported():
    with Sandbox(load_adapter(f"{HOSTILE}:Sleeps")) as sandbox:
        began = time.monotonic()
        measured, violation = sandbox.linear(1.0)
        assert time.monotonic() - began < 10
    assert measured is None and violation is not None
    assert (violation.check, violation.rule) == ("linear", "R-ROBUST-1")
    assert "no answer within 1 s" in violation.detail


def test_differential_mode_reports_a_disagreement_on_token_soup():
    soup = Case(Context(), ("<THINK>x</THINK>y",), ("<THINK>x</THINK>y",), 3)
    violation = first_violation(load_adapter("reference"), soup,
                                against=load_adapter(BROKEN["case_sensitive"]))
    assert violation is not None and violation.check == "differential"
    assert violation.other_output == "<THINK>x</THINK>y" and violation.got == "y"


# -- the Hypothesis loop ------------------------------------------------------------------
def test_seeded_hunt_of_the_reference_finds_nothing():
    """The CI hunt: a fixed number of seeded cases (the same on every machine), in-memory
    database, well under two minutes."""
    result = hunt("reference", quick(seconds=90.0, seed=20261130, examples=700))
    assert result.errors == []
    assert result.examples == 700
    assert [f.violation for f in result.findings] == []


def test_hunt_shrinks_a_leak_to_a_minimal_lintable_scenario(tmp_path):
    result = hunt(BROKEN["case_sensitive"],
                  quick(stop=lambda f: f.rule == "R-LEAK-1", soup=False))
    leak = next(f for f in result.findings if f.rule == "R-LEAK-1")
    assert len(leak.violation.deltas) <= 3 and len(leak.case.text) < 60
    assert leak.case.reasoning and leak.case.reasoning[0] in leak.case.text
    save_findings(result.findings, tmp_path)
    corpus = load_corpus([tmp_path])
    assert corpus.errors == []
    assert {s.id for s in corpus.scenarios} == {f.scenario_id for f in result.findings}


def test_a_should_finding_keeps_only_should_rules():
    result = hunt(BROKEN["buffers_all"], quick(stop=lambda f: f.violation.level == "SHOULD"))
    holdback = next(f for f in result.findings if f.violation.check == "holdback")
    scenario = yaml.safe_load(finding_yaml(holdback))[0]
    assert scenario["rules"][0] in ("R-STREAM-1", "R-STREAM-2")
    assert not {"R-BLOCK-1", "R-CODE-1"} & set(scenario["rules"])


def test_the_linear_property_reports_the_time_ratio():
    result = hunt("reference", quick(seconds=0.5, linear=True))
    assert result.linear is not None and result.linear.finding is None
    assert 4 < result.linear.metrics["ratio_1char"] < 12


def test_failures_stay_in_the_database_for_the_next_hunt():
    db = KeepFailures(InMemoryExampleDatabase())
    db.save(b"key", b"failing")
    db.delete(b"key", b"failing")  # what Hypothesis does once the failure is known
    db.save(b"key.secondary", b"x")
    db.delete(b"key.secondary", b"x")
    assert list(db.fetch(b"key")) == [b"failing"]
    assert list(db.fetch(b"key.secondary")) == []


def command(module, argv):  # type: ignore[no-untyped-def]
    """Run one command module as the CLI would (without building every other command)."""
    import argparse

    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return module.run(parser.parse_args(argv))


# -- output ---------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None, database=None)
@given(st.text())
def test_yaml_strings_read_back_exactly(text):
    assert yaml.safe_load(quote(text)) == text


def test_hunt_command_prints_and_saves_findings(tmp_path, capsys):
    code = command(hunt_command, ["--scrubber", BROKEN["prefill_ignored"], "--time", "2",
                                  "--seed", "1", "--database", "memory", "--no-linear",
                                  "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "R-LEAK-1 (no-leak)" in out and "- id: hunt-leak-1-" in out
    assert "starts_in_reasoning: true" in out
    assert load_corpus([tmp_path]).errors == []
    assert command(lint_command, [str(tmp_path)]) == 0


def test_timeout_is_one_wall_clock_option_and_the_old_spelling_warns(capsys):
    import argparse

    parser = argparse.ArgumentParser(prog="scrubcheck hunt")
    hunt_command.add_arguments(parser)
    assert parser.parse_args([]).timeout == 10.0
    assert parser.parse_args(["--timeout", "2.5"]).timeout == 2.5
    assert capsys.readouterr().err == ""
    assert parser.parse_args(["--example-timeout", "3"]).timeout == 3.0
    assert "--example-timeout is deprecated; use --timeout" in capsys.readouterr().err


def test_hunt_command_rejects_bad_arguments(capsys):
    assert command(hunt_command, ["--time", "0"]) == 2
    assert command(hunt_command, ["--timeout", "0"]) == 2
    assert command(hunt_command, ["--max-examples", "0"]) == 2
    with pytest.raises(SystemExit) as usage:  # checked while parsing: argparse's exit 2
        command(hunt_command, ["--memory-limit", "lots"])
    assert usage.value.code == 2 and "--memory-limit: not a size" in capsys.readouterr().err
    assert command(hunt_command, ["--scrubber", "no.such.module:X", "--time", "1"]) == 2
    assert "cannot load scrubber" in capsys.readouterr().err


def test_finding_ids_are_stable_and_slugs():
    case = structured(["a", ("<think>", C0, "</think>")])
    violation = Violation("no-leak", "R-LEAK-1", detail="detail", deltas=case.deltas)
    first = Finding(violation, case, "hunt", "x", 1.0)
    again = Finding(Violation("no-leak", "R-LEAK-1", detail="other", deltas=case.deltas), case,
                    "hunt", "y", 2.0)
    assert first.scenario_id == again.scenario_id
    assert first.scenario_id.startswith("hunt-leak-1-")


# -- the fuzz shrinker ------------------------------------------------------------------------
def test_choice_shrinker_finds_the_smallest_failing_list():
    values = [9, 4, 200, 7, 13, 8]
    assert shrink_choices(values, lambda c: sum(c) >= 10, seconds=5) == [10]


def test_delta_shrinker_keeps_what_the_failure_needs():
    deltas = ("Hello <thi", "nk>secret stuff</think> and more text")
    found = shrink_deltas(deltas, lambda d: "secret" in "".join(d) and len(d) == 2, seconds=5)
    assert "".join(found) == "secret" and len(found) == 2


MINIMAL_PEER = Path(__file__).resolve().parent.parent / "docs/examples/minimal-peer/peer.toml"


@pytest.mark.skipif(not MINIMAL_PEER.is_file(), reason="the example peer is not in this checkout")
def test_hunt_drives_a_peer_through_the_protocol():
    result = hunt(f"peer:{MINIMAL_PEER}", quick(seconds=20, shrink=False,
                                                stop=lambda f: f.is_leak))
    assert any(f.is_leak for f in result.findings), [f.rule for f in result.findings]
