"""Adapters: every spec form loads, context reaches the scrubber only where its
signature names it, and every way a spec can be wrong gives a clear error."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from scrubcheck.adapters import AdapterError, load_adapter, split_channels
from scrubcheck.adapters.drive import run_stream
from scrubcheck.model import Context

SCRUBBERS = textwrap.dedent(
    '''
    class Upper:
        """Stream scrubber taking only starts_in_reasoning; finish_reason via flush."""
        supported_features = ("bracket",)

        def __init__(self, *, starts_in_reasoning=False):
            self.prefix = "R:" if starts_in_reasoning else ""
            self.finish = None

        def feed(self, delta):
            out, self.prefix = self.prefix + delta.upper(), ""
            return out

        def flush(self, finish_reason=None):
            return f"[{finish_reason}]"

    class Everything:
        def __init__(self, **context):
            self.context = context

        def feed(self, delta):
            return ""

        def flush(self):
            return repr(sorted(self.context.items()))

    class InstanceFeatures:
        def __init__(self):
            self.supported_features = frozenset({"kimi"})

        def feed(self, delta):
            return delta

        def flush(self):
            return ""

    class NoFlush:
        def feed(self, delta):
            return delta

    def make_upper():
        return Upper()

    def strip_x(text, *, features=()):
        return text.replace("x", "") + f"|{len(features)}"

    def split_tuple(text):
        return ("thought", text.upper())

    class Parts:
        def __init__(self, reasoning, answer):
            self.reasoning, self.answer = reasoning, answer

    def split_object(text):
        return Parts("r:" + text, None)

    class StreamSplitter:
        def feed(self, delta):
            return {"reasoning": "", "answer": delta}

        def flush(self):
            return ("tail reasoning", "!")

    upper_instance = Upper()

    def two_args(a, b):
        return a
    '''
)


@pytest.fixture(scope="module")
def module_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("adapters") / "my_scrubbers.py"
    path.write_text(SCRUBBERS)
    return path


def spec(module_file: Path, attr: str, kind: str = "") -> str:
    return f"{kind}{module_file}:{attr}"


def test_registered_name_loads_the_reference():
    adapter = load_adapter("reference")
    assert adapter.kind == "stream"
    assert set(adapter.accepted_context) == {
        "starts_in_reasoning", "inline_answer", "finish_reason", "features",
        "may_skip_reasoning", "delimiters", "conformance_class"}
    assert "bracket" in adapter.supported_features
    trace = run_stream(adapter, Context(), ["Hi <thi", "nk>secret plan</think>there"])
    assert trace.output == "Hi there"


def test_module_attr_form_loads_a_class():
    adapter = load_adapter("scrubcheck.scrubbers.reference:ReferenceScrubber")
    assert adapter.kind == "stream" and adapter.name.endswith(":ReferenceScrubber")


def test_file_form_and_context_through_factory_and_flush(module_file):
    adapter = load_adapter(spec(module_file, "Upper"))
    assert adapter.accepted_context == frozenset({"starts_in_reasoning", "finish_reason"})
    assert adapter.supported_features == frozenset({"bracket"})
    trace = run_stream(adapter, Context(starts_in_reasoning=True, finish_reason="length"), ["ab"])
    assert trace.output == "R:AB[length]"


def test_var_keyword_factory_receives_every_context_key(module_file):
    adapter = load_adapter(spec(module_file, "Everything"))
    context = Context(inline_answer=True, finish_reason=None, features=("kimi",))
    output = run_stream(adapter, context, ["x"]).output
    assert "('finish_reason', None)" in output and "('features', ('kimi',))" in output
    assert "('inline_answer', True)" in output


def test_supported_features_may_live_on_the_instance(module_file):
    adapter = load_adapter(spec(module_file, "InstanceFeatures"))
    assert adapter.supported_features == frozenset({"kimi"})


def test_zero_argument_function_factory(module_file):
    adapter = load_adapter(spec(module_file, "make_upper"))
    assert run_stream(adapter, Context(), ["a"]).output == "A[stop]"  # flush gets it


def test_unsupported_reason_names_what_cannot_be_delivered(module_file):
    adapter = load_adapter(spec(module_file, "Upper"))
    assert adapter.unsupported_reason(Context()) is None
    assert adapter.unsupported_reason(Context(starts_in_reasoning=True)) is None
    reason = adapter.unsupported_reason(Context(inline_answer=True))
    assert reason is not None and "inline_answer" in reason
    reason = adapter.unsupported_reason(Context(features=("bracket",)))
    assert reason is not None and "features" in reason  # declared, but no keyword to pass it
    everything = load_adapter(spec(module_file, "Everything"))
    reason = everything.unsupported_reason(Context(features=("kimi",)))
    assert reason is not None and "kimi" in reason  # accepts the keyword, declares nothing


def test_batch_function(module_file):
    adapter = load_adapter(spec(module_file, "strip_x", "batch:"))
    assert adapter.kind == "batch" and not adapter.streams
    trace = run_stream(adapter, Context(features=("kimi",)), ["axb", "x"])
    assert trace.returns == ["", "", "ab|1"]


def test_batch_session_is_reusable_after_flush(module_file):
    adapter = load_adapter(spec(module_file, "strip_x", "batch:"))
    session = adapter.open(Context())
    session.feed("first x")
    assert session.flush() == "first |0"
    session.feed("second")
    assert session.flush() == "second|0"


def test_splitter_tuple_object_and_streaming_forms(module_file):
    tuple_adapter = load_adapter(spec(module_file, "split_tuple", "splitter:"))
    trace = run_stream(tuple_adapter, Context(), ["ab", "c"])
    assert trace.output == "ABC" and trace.reasoning == "thought"
    object_adapter = load_adapter(spec(module_file, "split_object", "splitter:"))
    trace = run_stream(object_adapter, Context(), ["q"])
    assert trace.output == "" and trace.reasoning == "r:q" and not trace.bad_returns
    stream_adapter = load_adapter(spec(module_file, "StreamSplitter", "splitter:"))
    assert stream_adapter.streams
    trace = run_stream(stream_adapter, Context(), ["a", "b"])
    assert trace.returns == ["a", "b", "!"] and trace.reasoning == "tail reasoning"


def test_split_channels_passes_unknown_shapes_through():
    assert split_channels(("r", "a")) == ("r", "a")
    assert split_channels({"answer": "a"}) == ("", "a")
    assert split_channels("just text") is None
    assert split_channels((1, 2, 3)) is None


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("no_such_module_xyz:Thing", "module 'no_such_module_xyz' not found"),
        ("scrubcheck.scrubbers.reference:Nope", "has no attribute 'Nope'"),
        ("not-registered", "unknown scrubber 'not-registered'"),
        (":Thing", "bad scrubber spec"),
        ("", "empty scrubber spec"),
        ("/nonexistent/dir/file.py:X", "not found"),
    ],
)
def test_bad_specs_have_clear_errors(bad, message):
    with pytest.raises(AdapterError, match=message):
        load_adapter(bad)


def test_object_without_flush_is_rejected(module_file):
    with pytest.raises(AdapterError, match=r"no flush\(\) method"):
        load_adapter(spec(module_file, "NoFlush"))


def test_instance_is_rejected_with_a_hint(module_file):
    with pytest.raises(AdapterError, match="names a scrubber instance"):
        load_adapter(spec(module_file, "upper_instance"))


def test_one_argument_function_without_kind_suggests_batch(module_file):
    with pytest.raises(AdapterError, match="use 'batch:"):
        load_adapter(spec(module_file, "strip_x"))


def test_batch_function_must_take_one_argument(module_file):
    with pytest.raises(AdapterError, match="needs 2"):
        load_adapter(spec(module_file, "two_args", "batch:"))
