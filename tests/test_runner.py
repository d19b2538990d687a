"""The runner against the bundled broken scrubbers: each bug is found, with the
right outcome, rule, chunking and replay command."""

from __future__ import annotations

import textwrap

import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.model import Context, Scenario
from scrubcheck.results import Outcome, ScenarioResult
from scrubcheck.runner import RunSettings, run_corpus, run_scenario
from scrubcheck.scrubbers.broken import BROKEN

MULTI = Scenario(
    id="multi-block", area="blocks", rules=("R-BLOCK-3",), description="two blocks mid-line",
    deltas=("a<think>first secret planning step</think>b", "<think>second secret planning step"
            "</think>c"),
    reasoning=("first secret planning step", "second secret planning step"), visible="abc",
)
PREFILL = Scenario(
    id="prefill", area="orphan", rules=("R-ORPHAN-2",), description="template pre-filled <think>",
    deltas=("the user greets me, reply briefly\n", "</think>\n\nHello there!"),
    reasoning=("the user greets me, reply briefly",), visible="\n\nHello there!",
    context=Context(starts_in_reasoning=True),
)
UNCLOSED = Scenario(
    id="unclosed", area="unclosed", rules=("R-UNCLOSED-1",), description="never closed",
    deltas=("Answer first.\n<think>weigh the two options\n", "last line of the hidden plan"),
    reasoning=("weigh the two options", "last line of the hidden plan"),
    visible="Answer first.\n",
)
COMPARISON = Scenario(
    id="comparison", area="vocabulary", rules=("R-VOCAB-2",), description="a < b is text",
    deltas=("if a < b then ", "swap"), reasoning=(), visible="if a < b then swap",
)
SURROGATE = Scenario(
    id="surrogate", area="unicode", rules=("R-ROBUST-1",), description="lone surrogate",
    deltas=("x\ud800y<think>private chain of thought</think>z",),
    reasoning=("private chain of thought",), visible="x\ud800yz",
)
PROSE = Scenario(
    id="prose", area="blocks", rules=("R-BLOCK-1",), description="a long answer after a block",
    deltas=("<think>outline the steps first</think>", "Step one: open the settings page. ",
            "Step two: choose the export format and save."),
    reasoning=("outline the steps first",),
    visible="Step one: open the settings page. Step two: choose the export format and save.",
)
ALL = [MULTI, PREFILL, UNCLOSED, COMPARISON, SURROGATE, PROSE]


def run(name_or_spec: str, scenario: Scenario, **settings) -> ScenarioResult:
    spec = BROKEN.get(name_or_spec, name_or_spec)
    return run_scenario(load_adapter(spec), scenario, RunSettings(**settings))


def rules_of(result: ScenarioResult) -> set[str]:
    return {f.rule for f in result.failures}


def failure(result: ScenarioResult, rule: str):
    return next(f for f in result.failures if f.rule == rule)


@pytest.mark.parametrize("scenario", ALL, ids=lambda s: s.id)
def test_reference_passes_with_every_check_run(scenario):
    result = run("reference", scenario)
    assert result.outcome is Outcome.PASS, result.failures
    assert result.chunkings_run > 10 and result.checks_run > result.chunkings_run * 3
    assert result.holdback is not None and result.holdback.mode == "stream"


def test_passthrough_leaks_shows_tags_and_loses_fidelity():
    result = run("passthrough", MULTI)
    assert result.outcome is Outcome.FAIL and result.worst_level == "MUST"
    assert {"R-LEAK-1", "R-TAG-1", "R-FID-1", "R-TRUNC-1"} <= rules_of(result)
    leak = failure(result, "R-LEAK-1")
    assert leak.chunking == "whole" and leak.step == 0  # the simplest replay is chosen
    assert "first·secret·planning·step" in leak.detail
    assert leak.similar > 50  # and the scale of the problem is counted
    assert leak.deltas == (MULTI.text,)


def test_stateless_leaks_only_when_a_block_is_split():
    result = run("stateless", MULTI)
    assert {"R-LEAK-1", "R-CHUNK-1"} <= rules_of(result)
    leak = failure(result, "R-LEAK-1")
    assert leak.chunking != "whole" and len(leak.deltas) >= 2
    invariance = failure(result, "R-CHUNK-1")
    assert "whole" in invariance.detail and invariance.chunking in invariance.detail


def test_stateless_is_fine_when_every_block_is_in_one_delta():
    result = run("stateless", MULTI, random_count=0)
    whole_only = [f for f in result.failures if f.chunking == "whole"]
    assert whole_only == []


def test_tags_only_leaks_reasoning_without_showing_tags():
    result = run("tags_only", MULTI)
    assert "R-LEAK-1" in rules_of(result) and "R-TAG-1" not in rules_of(result)


def test_tags_only_on_prefill_leaks_before_the_close():
    assert "R-LEAK-1" in rules_of(run("tags_only", PREFILL))


def test_flush_last_line_leaks_at_flush_and_under_truncation():
    result = run("flush_last_line", UNCLOSED)
    leak = failure(result, "R-LEAK-1")
    assert leak.step is None and "last·line·of·the·hidden·plan" in leak.detail
    truncation = failure(result, "R-TRUNC-1")
    assert truncation.chunking.startswith("trunc@") and truncation.check == "truncation"
    assert run("flush_last_line", MULTI).outcome is Outcome.PASS  # closed blocks are fine


def test_raises_is_an_error_with_the_exception_and_where():
    result = run("raises", SURROGATE)
    assert result.outcome is Outcome.ERROR
    assert "UnicodeEncodeError" in result.reason and "raises.py" in result.reason
    error = failure(result, "R-ROBUST-1")
    assert error.check == "exception" and error.step == 0
    assert "UnicodeEncodeError" in (error.got or "")  # the traceback
    assert run("raises", MULTI).outcome is Outcome.PASS


def test_returns_bytes_fails_the_type_check():
    result = run("returns_bytes", MULTI)
    assert result.outcome is Outcome.FAIL
    typed = failure(result, "R-ROBUST-1")
    assert typed.check == "type" and "bytes" in typed.detail and typed.step is None


def test_no_context_is_unsupported_on_prefill_and_never_passed():
    result = run("no_context", PREFILL)
    assert result.outcome is Outcome.UNSUPPORTED
    assert "starts_in_reasoning" in result.reason and result.checks_run == 0
    assert not result.fails_at("must")
    assert run("no_context", MULTI).outcome is Outcome.PASS


def test_replay_command_names_scenario_scrubber_chunking_and_seed():
    result = run("stateless", MULTI, seed=5, corpus_paths=("my corpus.yaml",))
    leak = failure(result, "R-LEAK-1")
    assert leak.replay == (
        f"scrubcheck show multi-block --scrubber {BROKEN['stateless']} --chunking "
        f"{leak.chunking} --seed 5 --corpus 'my corpus.yaml'"
    )


def test_a_scenario_where_no_check_ran_is_an_error(monkeypatch):
    import scrubcheck.runner.judge as module

    monkeypatch.setattr(module, "chunking_names", lambda *a, **k: ([], {}))
    monkeypatch.setattr(module, "cut_points", lambda *a, **k: ([], 0))
    result = run("reference", MULTI)
    assert result.outcome is Outcome.ERROR and "no check ran" in result.reason


SCRUBBERS = textwrap.dedent(
    '''
    import os
    from scrubcheck.scrubbers.reference import ReferenceScrubber, strip_reasoning

    class Crashes(ReferenceScrubber):
        def feed(self, delta):
            if "swap" in delta:
                os._exit(3)
            return super().feed(delta)

    from scrubcheck.scrubbers.broken._simple import SimpleScrubber

    class Sticky(SimpleScrubber):
        """flush() forgets to leave an open block: the next stream starts inside it."""
        def flush(self):
            out = self.held if self.block is None else ""
            self.held = ""
            return out

    def split(text, **context):
        return ("(reasoning channel)", strip_reasoning(text, **context))
    split.supported_features = ReferenceScrubber.supported_features
    strip_reasoning.supported_features = ReferenceScrubber.supported_features
    '''
)


@pytest.fixture(scope="module")
def scrubbers(tmp_path_factory):
    path = tmp_path_factory.mktemp("runner") / "runner_scrubbers.py"
    path.write_text(SCRUBBERS)
    return path


def test_buffering_stream_fails_only_at_should_level():
    assert run(BROKEN["buffers_all"], MULTI).outcome is Outcome.PASS  # "abc": under a tag
    result = run(BROKEN["buffers_all"], PROSE)
    assert result.outcome is Outcome.FAIL and result.worst_level == "SHOULD"
    assert result.holdback.max_lag_vs_reference > 23
    assert rules_of(result) == {"R-STREAM-2"}
    assert failure(result, "R-STREAM-2").chunking == "char"
    assert not result.fails_at("must") and result.fails_at("should")


def test_state_kept_across_flush_fails_reuse(scrubbers):
    result = run(f"{scrubbers}:Sticky", MULTI)
    reuse = failure(result, "R-REUSE-1")
    assert reuse.chunking == "reuse:unclosed-block" and reuse.check == "reuse"
    assert reuse.expected == "abc" and reuse.got != "abc"
    assert "unclosed block" in reuse.detail
    assert rules_of(result) == {"R-REUSE-1"}  # fresh objects are fine


def test_batch_and_splitter_adapters_pass_with_batch_holdback(scrubbers):
    for spec in ("batch:scrubcheck.scrubbers.reference:strip_reasoning",
                 f"splitter:{scrubbers}:split"):
        for scenario in (MULTI, PREFILL):
            result = run(spec, scenario)
            assert result.outcome is Outcome.PASS, (spec, result.failures, result.reason)
            assert result.holdback.mode == "batch"


def test_hang_is_a_timeout_and_the_run_goes_on_in_corpus_order():
    settings = RunSettings(timeout_s=2, jobs=2, linear_check=False)
    run_result = run_corpus(BROKEN["hangs"], ALL, settings)
    assert [r.scenario_id for r in run_result.results] == [s.id for s in ALL]
    outcomes = {r.scenario_id: r.outcome for r in run_result.results}
    assert outcomes["comparison"] is Outcome.TIMEOUT
    timed_out = run_result.results[ALL.index(COMPARISON)]
    assert "CPU" in timed_out.reason and "--chunking" in timed_out.reason  # CPU or wall backstop
    assert outcomes["multi-block"] is Outcome.PASS and outcomes["prefill"] is Outcome.PASS
    assert run_result.exit_code("must") == 1


def test_a_scrubber_that_kills_its_process_is_an_error(scrubbers):
    settings = RunSettings(timeout_s=20, jobs=1, linear_check=False)
    run_result = run_corpus(f"{scrubbers}:Crashes", ALL, settings)
    crashed = run_result.results[ALL.index(COMPARISON)]
    assert crashed.outcome is Outcome.ERROR and "exit code 3" in crashed.reason
    assert sum(r.outcome is Outcome.PASS for r in run_result.results) == len(ALL) - 1


def test_run_result_records_adapter_and_linear_check():
    run_result = run_corpus("reference", [MULTI, PREFILL], RunSettings(jobs=2))
    assert run_result.scrubber_kind == "stream" and "features" in run_result.accepted_context
    [linear] = run_result.scrubber_checks
    assert linear.outcome is Outcome.PASS and linear.metrics["ratio_1char"] > 0
    assert run_result.exit_code() == 0
    from scrubcheck.results import RunResult

    assert RunResult.from_dict(run_result.to_dict()) == run_result


def test_worker_cpu_time_is_measured_from_proc():
    import os

    from scrubcheck.runner.pool import cpu_seconds

    before = cpu_seconds(os.getpid())
    if before is None:
        pytest.skip("no /proc here: the pool falls back to wall-clock timeouts")
    sum(i * i for i in range(300_000))
    assert cpu_seconds(os.getpid()) > before


def test_linear_check_under_a_tiny_budget_is_not_measured_rather_than_passed():
    import time

    from scrubcheck.runner import run_linear_check

    started = time.monotonic()
    result = run_linear_check(load_adapter("reference"), budget_s=0.5)
    assert time.monotonic() - started < 2.0
    assert result.outcome is Outcome.TIMEOUT and result.checks_run == 0
    assert "not measured" in result.reason and "0.5 s wall-clock budget" in result.reason
    assert "--timeout" in result.reason


def test_advice_names_the_callers_options():
    """The same messages name the options of whoever started the run (the plugin's
    differ from the command line's)."""
    from scrubcheck.option_names import OptionNames
    from scrubcheck.runner import run_linear_check
    from scrubcheck.runner.judge import blank_result
    from scrubcheck.runner.pool import name_memory_limit

    names = OptionNames(timeout="--budget", memory_limit="--cap", skip_linear="--skip-it")
    result = run_linear_check(load_adapter("reference"), budget_s=0.5, options=names)
    assert result.outcome is Outcome.TIMEOUT
    assert "0.5 s wall-clock budget (--budget)" in result.reason
    assert result.reason.endswith("; raise --budget or pass --skip-it"), result.reason
    scenario = Scenario(id="x", area="test", rules=("R-ROBUST-1",), description="",
                        deltas=("a",), reasoning=(), visible="a")
    failed = blank_result(scenario, Outcome.ERROR, "MemoryError")
    name_memory_limit(failed, 512 << 20, names)
    name_memory_limit(failed, 512 << 20, names)  # once only
    assert failed.reason == "MemoryError (the worker's memory limit of 512 MiB was reached: --cap)"
    default = blank_result(scenario, Outcome.ERROR, "MemoryError")
    name_memory_limit(default, 512 << 20)
    assert default.reason.endswith("was reached: --memory-limit)")


def test_output_capture_keeps_head_and_tail_and_counts_what_it_dropped():
    from scrubcheck.runner.capture import HEAD_BYTES, TAIL_BYTES, OutputCapture

    capture = OutputCapture()
    assert capture.text() is None
    for i in range(10_000):
        capture.feed(b"line %05d\n" % i)
    text = capture.text()
    assert text.startswith("[110,000 bytes, 10,000 lines of stdout/stderr; ")
    assert "line 00000" in text and "line 09999" in text and "line 05000" not in text
    assert f"{110_000 - HEAD_BYTES - TAIL_BYTES:,} bytes not kept" in text
    assert len(text) < HEAD_BYTES + TAIL_BYTES + 200
    small = OutputCapture()
    small.feed(b"one\n")
    assert small.text() == "[4 bytes, 1 line of stdout/stderr]\none\n"


@pytest.mark.parametrize(("text", "size"), [("512M", 512 * 2**20), ("2G", 2 * 2**30),
                                            ("1.5GiB", 3 * 2**29), ("4096", 4096)])
def test_memory_sizes_read_with_binary_units(text, size):
    from scrubcheck.runner.settings import format_size, parse_size

    assert parse_size(text) == size
    assert parse_size(format_size(size).replace(" ", "")) == size
    for bad in ("", "12X", "-1G", "0"):
        with pytest.raises(ValueError):
            parse_size(bad)
