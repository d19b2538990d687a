"""Conformance classes (SPEC section 12): placing scenarios, judging within a claim, and
the reference passing every class."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scrubcheck.claims import UnknownClass, claimed_class, place
from scrubcheck.cli import main
from scrubcheck.corpus import load_corpus
from scrubcheck.model import Context, Scenario
from scrubcheck.vocabulary import conformance_classes

THINK_ONLY = Path(__file__).parent / "data" / "claims" / "think_only.py"
SPEC = f"{THINK_ONLY}:ThinkOnly"


def _scenario(text: str, context: Context | None = None, visible: str = "",
              reasoning: tuple[str, ...] = ()) -> Scenario:
    return Scenario(id="s", area="a", rules=("R-BLOCK-1",), description="", deltas=(text,),
                    reasoning=reasoning, context=context or Context(), visible=visible)


@pytest.mark.parametrize("text, context, cls, why", [
    ("<thought>plan</thought>Hi", Context(), "think", "'<thought>', a delimiter of default"),
    ("<think>a</think>[THINK]b[/THINK]", Context(), "think", "'[THINK]', a delimiter of bracket"),
    ("[think]a[/think]Hi", Context(features=("bracket",)), "bracket", "in another letter case"),
    ("<think>a</think>", Context(features=("bracket",)), "think", "feature(s) bracket"),
    ("a</think>Hi", Context(starts_in_reasoning=True), "bracket", "never writes"),
    ("<think>a</think>", Context(delimiters=({"marker": "@@"},)), "think", "caller delimiters"),
])
def test_a_scenario_with_what_the_class_lacks_is_beyond_it(text, context, cls, why) -> None:
    placed = place(_scenario(text, context), cls)
    assert placed.scenario is None and why in (placed.beyond or ""), placed


def test_within_a_class_the_scenario_keeps_its_expectation_or_the_model_rereads_it() -> None:
    same = place(_scenario("<THINK>plan it</THINK>Hi", visible="Hi",
                           reasoning=("plan it",)), "default")  # ASCII case-insensitive
    assert same.scenario is not None and not same.reread
    assert same.scenario.visible == "Hi" and same.scenario.context.conformance_class == "default"
    assert place(_scenario("<THINK>plan it</THINK>Hi"), "think").scenario is None  # exact
    # R-VOCAB-4: without the feature the generic class shows [THINK] literally; in the
    # bracket class it is a tag, so the SPEC model's reading is the expectation
    literal = "[THINK]plan the answer[/THINK]Hi"
    reread = place(_scenario(literal, visible=literal), "bracket")
    assert reread.scenario is not None and reread.reread
    assert reread.scenario.visible == "Hi"
    assert place(_scenario("plain text"), "harmony").scenario is not None  # no delimiter


def test_the_class_judged_is_the_asked_one_else_the_claimed_one() -> None:
    assert claimed_class((), None) == "generic"
    assert claimed_class(("think",), None) == "think"
    assert claimed_class(("think", "generic"), None) == "generic"
    assert claimed_class(("think",), "bracket") == "bracket"
    with pytest.raises(UnknownClass, match="unknown conformance class 'nope'"):
        claimed_class((), "nope")


def test_a_think_only_scrubber_passes_its_claim_and_fails_the_generic_class(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The shape of most real scrubbers: judged in the generic class it 'leaks' on every
    other tag name; within its claim every failure is a bug of its own (none here)."""
    common = ["run", "--scrubber", SPEC, "--no-linear", "--jobs", "2", "--no-progress",
              "--random-chunkings", "2"]
    assert main([*common, "--claim", "generic"]) == 1
    generic = capsys.readouterr().out
    assert "leaks: 0 " not in generic
    assert main(common) == 0  # its own claim, from its `claims` attribute
    within = capsys.readouterr().out
    scenarios = len(load_corpus(None).scenarios)
    counts = next(line for line in within.splitlines() if line.startswith("PASS "))
    passed, beyond = int(counts.split()[1]), int(counts.split("BEYOND CLAIM ")[1])
    assert passed + beyond == scenarios and passed > 400 and "FAIL 0" in counts


def test_the_plugin_judges_the_claim_and_skips_what_is_beyond_it(tmp_path: Path) -> None:
    def pytest_run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "--scrubber", SPEC, "--scrubcheck-jobs", "2",
                               "--scrubcheck-area", "blocks", *extra],
                              cwd=tmp_path, capture_output=True, text=True, timeout=600)

    within = pytest_run("--scrubcheck-claim", "think", "-rs")
    assert within.returncode == 0, within.stdout[-2000:]
    assert "BEYOND CLAIM: beyond the claim think" in within.stdout
    generic = pytest_run("--scrubcheck-claim", "generic")
    assert generic.returncode == 1, generic.stdout[-2000:]
    bad = pytest_run("--scrubcheck-claim", "nope")
    assert bad.returncode == 4 and "unknown conformance class 'nope'" in bad.stderr


@pytest.mark.slow
@pytest.mark.parametrize("cls", [c for c in conformance_classes() if c != "generic"])
def test_the_reference_passes_every_class(cls: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each class's scenarios, judged with the class's vocabulary (the generic class is
    the committed reference report)."""
    code = main(["run", "--scrubber", "reference", "--claim", cls, "--no-linear", "--jobs", "2",
                 "--no-progress", "--random-chunkings", "2"])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    counts = next(line for line in out.splitlines() if line.startswith("PASS "))
    assert int(counts.split()[1]) > 0, counts


def test_a_class_runs_replay_command_names_the_class_and_show_judges_the_same(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Judged in `default`, the think-only scrubber leaks on <thought>; the replay command
    the run prints carries --claim, and show with it gives the same verdict; show in the
    scrubber's own class says the scenario is beyond it."""
    scenario = "vocab-family-thought"
    assert main(["run", "--scrubber", SPEC, "--claim", "default", "--id", scenario,
                 "--no-linear", "--jobs", "1", "--no-progress"]) == 1
    out = capsys.readouterr().out
    replay = next(line.split("replay: ", 1)[1] for line in out.splitlines()
                  if "replay: scrubcheck show" in line)
    assert replay.endswith("--claim default"), replay
    assert main(replay.split()[1:]) == 1
    assert "verdict: FAIL" in capsys.readouterr().out
    assert main(["show", scenario, "--scrubber", SPEC]) == 0
    assert "BEYOND CLAIM" in capsys.readouterr().out
