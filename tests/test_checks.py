"""The checks on their own: whitespace rule, leak windows, rendering, expected
output levels, invariance, hold-back, truncation slicing, robustness and the
linear-time measurement."""

from __future__ import annotations

import textwrap

import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.adapters.drive import Trace, run_stream, truncate_deltas
from scrubcheck.checks import (
    LeakDetector,
    StreamOutput,
    check_exception,
    check_expected,
    check_invariance,
    check_leak,
    check_types,
    measure_holdback,
    measure_linearity,
    visible,
    ws_compare,
)
from scrubcheck.checks.render import describe_difference, first_difference
from scrubcheck.model import Context, Scenario

# -- R-WS-1 -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "got", "cuts"),
    [
        ("a\n\nb", "a\n\nb", [2]),  # identical
        ("a\n\nb", "a\nb", [2]),  # a run at a cut may shrink...
        ("a b", "a \n\t b", [1]),  # ...or grow, with any whitespace
        ("\n\nHello", "Hello", [0]),  # may vanish at the very start
        ("Hello\n", "Hello", [6]),  # ...or at the very end
        ("x  y", "x\ty", [2]),  # a cut inside the run counts for the whole run
    ],
)
def test_ws_rule_allows(expected, got, cuts):
    assert ws_compare(expected, got, cuts) is None


@pytest.mark.parametrize(
    ("expected", "got", "cuts", "reason"),
    [
        ("a\n\nb", "ab", [2], "dropped"),  # glued words at a cut
        ("ab", "a b", [1], "whitespace inserted"),  # nothing may be inserted where W is empty
        ("a b\nc", "a b c", [5], "whitespace differs"),  # exact away from the cuts
        ("a b", "ab", [], "whitespace dropped"),
        ("a b", "a b!", [1], "extra text"),
        ("a b!", "a b", [1], "ends too early"),
        ("abc", "abd", [1], "text differs"),
    ],
)
def test_ws_rule_forbids(expected, got, cuts, reason):
    mismatch = ws_compare(expected, got, cuts)
    assert mismatch is not None and reason in mismatch.reason


def test_ws_mismatch_locates_the_difference_in_both_texts():
    mismatch = ws_compare("one\n\ntwo three", "one two  three", [3])
    assert mismatch is not None
    assert (mismatch.expected_index, mismatch.got_index) == (9, 8)
    assert mismatch.reason == "whitespace inserted"


# -- R-LEAK-1 windows -------------------------------------------------------


def test_any_eight_character_window_is_a_leak():
    detector = LeakDetector(["the user wants a greeting"])
    leak = detector.first_leak("Hello! wants a gr")
    assert leak is not None and leak.text == " wants a gr"  # extended to all it shares
    assert detector.first_leak("Hello! wants a") is not None  # " wants a": 8 characters
    assert detector.first_leak("wants a!") is None  # "wants a" is 7 characters: not proof


def test_short_reasoning_must_appear_whole():
    detector = LeakDetector(["ok?"])
    assert detector.first_leak("ok!") is None
    assert detector.first_leak("so ok? yes").text == "ok?"


def test_the_earliest_window_wins_and_is_extended():
    detector = LeakDetector(["alpha bravo charlie", "delta echo foxtrot"])
    leak = detector.first_leak("xx delta echo foxtrot yy alpha bravo charlie")
    assert leak.reasoning == "delta echo foxtrot" and leak.text == "delta echo foxtrot"
    assert leak.visible_at == len("xx delta ec")  # where its first 8-character window ends


def test_leak_step_is_the_feed_that_showed_it():
    detector = LeakDetector(["secret planning"])
    trace = Trace(("a", "b", "c"), returns=["Hi ", "secret pl", "anning", ""], ends=[3, 12, 18, 18],
                  flushed=True)
    finding = check_leak(trace, detector)
    assert finding is not None and finding.step == 1 and finding.rule == "R-LEAK-1"
    at_flush = Trace(("a",), returns=["", "secret planning"], ends=[0, 15], flushed=True)
    assert check_leak(at_flush, detector).step is None


def test_truncation_counts_only_reasoning_already_fed():
    text = "Hi <think>first part of the plan</think>"
    detector = LeakDetector(["first part of the plan"], text)
    cut = text.index("of the")  # "first part " fed: windows inside it are live
    assert detector.first_leak("first par", seen=cut) is not None
    assert detector.first_leak("t of the", seen=cut) is None  # not yet fed at this cut
    assert detector.first_leak("t of the", seen=len(text)) is not None


# -- rendering ---------------------------------------------------------------


def test_visible_whitespace_and_invisibles():
    assert visible("a b\n\tc\r") == "a·b¶→c←"
    assert visible("a·b¶c→d←") == "a\\xb7b\\xb6c\\u2192d\\u2190"  # a mark is never text
    assert visible("x\u2028y\x00z\ud800") == "x\\u2028y\\x00z\\ud800"
    assert visible("naïve 思考") == "naïve·思考"


def test_first_difference_and_description():
    assert first_difference("abc", "abc") is None
    assert first_difference("abc", "abd") == 2
    assert first_difference("ab", "abc") == 2
    assert "index 3" in describe_difference("one two", "one\ttwo")


# -- expected output -----------------------------------------------------------


def make(visible=None, acceptable=None, rules=("R-BLOCK-1",)):
    return Scenario(id="e", area="t", rules=rules, description="d", deltas=("x",), reasoning=(),
                    visible=visible, acceptable=acceptable)


def test_expected_uses_cuts_only_when_given():
    s = make(visible="a\n\nb")
    assert check_expected(s, "a\nb", [2]) is None
    finding = check_expected(s, "a\nb", None)
    assert finding is not None and finding.rule == "R-WS-1" and "compared exactly" in finding.detail


def test_expected_rule_is_fid_when_text_differs():
    finding = check_expected(make(visible="The answer"), "The answr", [])
    assert finding.rule == "R-FID-1" and finding.level == "MUST"
    assert finding.expected == "The answer" and finding.got == "The answr"


def test_acceptable_is_exact_and_names_the_nearest():
    s = make(acceptable=("Hello there", "Hello  there"))
    assert check_expected(s, "Hello  there", None) is None
    finding = check_expected(s, "Hello\nthere", None)
    assert finding is not None and "none of the 2 acceptable" in finding.detail


def test_should_only_behaviour_rules_make_a_should_failure():
    s = make(visible="[THINK]x[/THINK]", rules=("R-VOCAB-4", "R-FID-1"))
    finding = check_expected(s, "", [])
    assert finding.level == "SHOULD" and finding.rule == "R-VOCAB-4"
    mixed = make(visible="keep", rules=("R-VOCAB-4", "R-BLOCK-1"))
    assert check_expected(mixed, "", []).level == "MUST"


# -- invariance, hold-back, truncation, robustness ------------------------------------


def test_invariance_names_both_chunkings():
    runs = [StreamOutput("whole", 1, True, "ab"), StreamOutput("char", 2, True, "a<b"),
            StreamOutput("split@1", 2, True, "ab"), StreamOutput("fixed-2", 1, False, "zzz")]
    findings = check_invariance(runs)
    assert len(findings) == 1
    run, finding = findings[0]
    assert run.name == "char" and "whole" in finding.detail and finding.rule == "R-CHUNK-1"
    assert check_invariance(runs[:1] + runs[2:]) == []  # errored runs are not compared


def test_holdback_lag_fails_at_should_level_only_for_streams():
    trace = Trace(tuple("abcdefghijklmnopqrstuvwxyz0123456789"),
                  returns=[""] * 36 + ["abcdefghijklmnopqrstuvwxyz0123456789"],
                  ends=[0] * 36 + [36], flushed=True)
    reference = list(range(1, 37))
    holdback, finding = measure_holdback(True, trace, reference, [36], max_tag_len=23)
    assert holdback.max_lag_vs_reference == 36 and holdback.max_held == 36
    assert finding is not None and finding.level == "SHOULD" and finding.rule == "R-STREAM-2"
    batch, none = measure_holdback(False, trace, reference, [36], max_tag_len=23)
    assert batch.mode == "batch" and none is None


def test_holdback_within_a_tag_length_passes():
    trace = Trace(tuple("abc"), returns=["", "", "abc", ""], ends=[0, 0, 3, 3], flushed=True)
    holdback, finding = measure_holdback(True, trace, [1, 2, 3], [2], max_tag_len=23)
    assert finding is None and holdback.max_lag_vs_reference == 2


def test_truncate_deltas():
    deltas = ("ab", "", "cde", "f")
    assert truncate_deltas(deltas, 0) == ()
    assert truncate_deltas(deltas, 2) == ("ab", "")
    assert truncate_deltas(deltas, 3) == ("ab", "", "c")
    assert truncate_deltas(deltas, 6) == deltas


BAD = textwrap.dedent(
    '''
    class Bytes:
        def feed(self, delta):
            return delta.encode()
        def flush(self):
            return None

    class Boom:
        def feed(self, delta):
            if "!" in delta:
                raise RuntimeError("bang")
            return delta
        def flush(self):
            return ""

    class Quadratic:
        """Re-scans everything it ever saw on every feed (a common field bug)."""
        def __init__(self):
            self.seen = ""
        def feed(self, delta):
            self.seen += delta
            for _ in range(3):  # Python-level rescans keep the measured n small
                for _ in self.seen:
                    pass
            return delta
        def flush(self):
            return ""
    '''
)


@pytest.fixture(scope="module")
def bad_module(tmp_path_factory):
    path = tmp_path_factory.mktemp("checks") / "bad_scrubbers.py"
    path.write_text(BAD)
    return path


def test_non_str_returns_are_reported_and_coerced(bad_module):
    trace = run_stream(load_adapter(f"{bad_module}:Bytes"), Context(), ["ab", "c"])
    finding = check_types(trace)
    assert finding is not None and finding.rule == "R-ROBUST-1" and finding.step == 0
    assert "bytes" in finding.detail and "2 more" in finding.detail
    assert trace.output == "abc"  # kept checkable


def test_exceptions_are_recorded_with_the_scrubbers_frame(bad_module):
    trace = run_stream(load_adapter(f"{bad_module}:Boom"), Context(), ["ok", "no!", "x"])
    assert not trace.ok and trace.output == "ok"
    finding = check_exception(trace)
    assert finding.step == 1 and "RuntimeError: bang" in finding.detail
    assert "bad_scrubbers.py" in finding.detail


def test_linear_time_check_fails_a_quadratic_scrubber(bad_module):
    measured = measure_linearity(load_adapter(f"{bad_module}:Quadratic"))
    assert measured.finding is not None and measured.finding.rule == "R-ROBUST-2"
    metrics = measured.metrics
    # measured well over the limit, or abandoned once above 32x (then stored as a bound)
    assert metrics.get("ratio_1char", 0) > 12 or metrics.get("ratio_1char_above") == 32
    assert "-1" not in measured.finding.detail and "(abandoned)x" not in measured.finding.detail


def test_linear_time_check_passes_the_reference():
    measured = measure_linearity(load_adapter("reference"))
    assert measured.finding is None, measured.metrics
    assert 0 < measured.metrics["ratio_1char"] <= 12
