"""`gateway check` and `gateway import` on the shipped sample captures and on built
ones; the capture file format; importing saved SSE text."""

from __future__ import annotations

import json
import sys
import time
import types
from importlib import resources
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.corpus import load_corpus
from scrubcheck.gateway import scrubbers as gateway_scrubbers
from scrubcheck.gateway.capture import (
    Capture,
    CaptureError,
    CaptureFileError,
    Chunk,
    parse_captures,
    read_captures,
    write_captures,
)
from scrubcheck.gateway.classify import Format, analyse
from scrubcheck.gateway.importer import scenario_item
from scrubcheck.gateway.sse import capture_from_sse, iter_events
from scrubcheck.gateway.verdicts import leak_detector
from scrubcheck.scrubbers.reference import strip_reasoning

SAMPLES = Path(str(resources.files("scrubcheck.gateway").joinpath("samples")))
FORMATS = [f.value for f in Format]
PASSTHROUGH = "scrubcheck.scrubbers.broken.passthrough:PassthroughScrubber"
NO_CONTEXT = "scrubcheck.scrubbers.broken.no_context:NoContextScrubber"


def sample(name: str) -> Capture:
    (capture,) = read_captures(SAMPLES / f"{name}.json")
    return capture


def content_capture(*deltas: str, finish: str | None = "stop", **response) -> Capture:
    chunks = [Chunk(t=0.1 * i, content=d) for i, d in enumerate(deltas)]
    chunks.append(Chunk(t=1.0, finish_reason=finish))
    return Capture(name="built", chunks=chunks, response=dict(response), done=True)


@pytest.fixture
def no_peers(monkeypatch):
    """As on a machine without the peers package (this one may have peers installed)."""
    monkeypatch.setattr(gateway_scrubbers, "PEERS_MODULE", "scrubcheck_test_no_peers")


def test_one_sample_per_format_ships():
    assert sorted(p.stem for p in SAMPLES.glob("*.json")) == sorted(FORMATS)


@pytest.mark.parametrize("name", FORMATS)
def test_sample_is_classified_as_its_format(name):
    capture = sample(name)
    analysis = analyse(capture)
    assert analysis.format.value == name
    assert analysis.context_source == "inferred from the stream"
    assert analysis.answer.strip()
    if name in ("native", "duplicated"):
        assert capture.structured_reasoning
    if name != "none" and name != "native":
        assert analysis.inline_reasoning


@pytest.mark.parametrize("name", FORMATS)
def test_check_prints_format_needs_and_verdicts(name, capsys, no_peers):
    code = main(["gateway", "check", str(SAMPLES / f"{name}.json"), "--scrubber", "reference",
                 "--scrubber", PASSTHROUGH])
    out = capsys.readouterr().out
    assert f"format:   {name}:" in out
    reference_row = next(line for line in out.splitlines() if line.startswith("reference "))
    assert " ok " in reference_row
    passthrough_row = next(line for line in out.splitlines() if line.startswith(PASSTHROUGH))
    leaks = name in ("inline-closed", "inline-prefilled", "inline-unclosed", "duplicated")
    assert ("LEAK" in passthrough_row) == leaks
    assert code == (1 if leaks else 0)
    assert "no peers installed" in out


def test_needs_explain_what_a_client_without_the_context_shows(capsys, no_peers):
    main(["gateway", "check", str(SAMPLES / "inline-prefilled.json"),
          str(SAMPLES / "inline-unclosed.json")])
    out = capsys.readouterr().out
    assert ("starts_in_reasoning=true (R-ORPHAN-2); without it: a client shows reasoning "
            '"The·user·wants·72') in out
    assert 'inline_answer=true (R-UNCLOSED-2); without it: a client shows "" instead' in out
    assert "context:  inline_answer=true, finish_reason=stop (inferred from the stream)" in out
    assert "2 capture(s), 1 scrubber(s): no scrubber leaks" in out


def test_unsupported_scrubber_is_run_without_the_context_and_its_leak_counts(capsys,
                                                                             no_peers):
    code = main(["gateway", "check", str(SAMPLES / "inline-prefilled.json"),
                 "--scrubber", NO_CONTEXT])
    out = capsys.readouterr().out
    assert code == 1
    assert "UNSUPPORTED (LEAK+LOSS" in out
    assert "cannot receive context starts_in_reasoning" in out


def test_installed_peers_are_added(monkeypatch, capsys):
    peers = types.ModuleType("scrubcheck_test_peers")
    peers.installed_specs = lambda: [PASSTHROUGH]  # type: ignore[attr-defined]
    monkeypatch.setattr(gateway_scrubbers, "PEERS_MODULE", "scrubcheck_test_peers")
    monkeypatch.setitem(sys.modules, "scrubcheck_test_peers", peers)
    code = main(["gateway", "check", str(SAMPLES / "inline-closed.json")])
    out = capsys.readouterr().out
    assert code == 1
    assert f"peers: 1 installed peer(s): {PASSTHROUGH}" in out
    assert f"leaks: {PASSTHROUGH} on inline-closed" in out


def test_no_peers_flag(capsys):
    main(["gateway", "check", str(SAMPLES / "none.json"), "--no-peers"])
    assert "peers: peers not run (--no-peers)" in capsys.readouterr().out


def test_announced_context_wins_over_inference():
    capture = content_capture("Reasoning about it.", "</think>", "Answer.",
                              scrubcheck_context={"starts_in_reasoning": True,
                                                  "finish_reason": "stop"})
    analysis = analyse(capture)
    assert analysis.context_source.startswith("announced by the server")
    assert analysis.format is Format.INLINE_PREFILLED
    assert analysis.answer == "Answer."


def test_feature_delimiters_are_detected_and_needed():
    capture = content_capture("[THINK]Pick the", " shorter route here.[/THINK]", "Take the A1.")
    analysis = analyse(capture)
    assert analysis.context.features == ("bracket",)
    assert [n.key for n in analysis.needs] == ["features"]
    assert analysis.answer == "Take the A1."
    assert analysis.format is Format.INLINE_CLOSED


def test_truncated_block_is_discarded_not_recovered():
    capture = content_capture("<think>\nstill weighing", " both options\nand", finish="length")
    analysis = analyse(capture)
    assert analysis.context.inline_answer is False
    assert analysis.answer == ""
    assert any("ends inside a block" in note for note in analysis.notes)


def test_literal_tag_in_code_is_not_reasoning():
    capture = content_capture("Use `<think>` to", " open a block.")
    analysis = analyse(capture)
    assert analysis.format is Format.NONE
    assert analysis.answer == "Use `<think>` to open a block."


def test_leak_detector_ignores_windows_shared_with_the_answer():
    detector = leak_detector(["the answer is 42 because six times seven"], "the answer is 42")
    assert detector.first_leak("So: the answer is 42.") is None
    assert detector.first_leak("because six times seven").text == "because six times seven"


# ------------------------------------------------------------------ import
@pytest.mark.parametrize("name", FORMATS)
def test_import_gives_a_scenario_that_lints(name, tmp_path, capsys):
    out = tmp_path / f"{name}.yaml"
    code = main(["gateway", "import", str(SAMPLES / f"{name}.json"), "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    corpus = load_corpus([out])
    assert corpus.errors == []
    (scenario,) = corpus.scenarios
    capture = sample(name)
    assert scenario.id == f"gw-{name}"
    assert list(scenario.deltas) == capture.content_deltas
    assert scenario.visible == strip_reasoning(capture.content, **scenario.context.as_kwargs())
    assert bool(scenario.reasoning) == (name not in ("none", "native"))
    assert f"format-{name}" in scenario.labels


def test_import_takes_reasoning_from_the_structured_channel():
    capture = sample("duplicated")
    item = scenario_item(capture, analyse(capture), "x")
    assert capture.structured_reasoning.strip() in capture.content
    # the clause with " minutes" shares a window with the answer, so it proves nothing
    assert item["reasoning"] == ["A week has 7 days,", "7 * 24 = 168 hours,",
                                 "and 168 * 60 = 10080."]
    assert item["rules"] == ["R-BLOCK-1", "R-LEAK-1"]


def test_import_keeps_the_non_default_context():
    capture = sample("inline-unclosed")
    item = scenario_item(capture, analyse(capture), "x")
    assert item["context"] == {"inline_answer": True}
    assert "R-UNCLOSED-2" in item["rules"] and "R-CTX-1" in item["rules"]


def _failed_captures() -> dict[str, tuple[Capture, str]]:
    """Incomplete captures, each with the reason `gateway import` must give."""
    cut = content_capture("<think>plan the answer", " carefully</think>Hel", finish=None)
    cut.done = False
    cut.error = CaptureError("cut", "the connection broke mid-stream after 2 chunks")
    errored = content_capture("partial")
    errored.error = CaptureError("stream", "the server sent an error event: overloaded")
    refused = Capture(name="built", error=CaptureError("http", "HTTP 500: boom", 500))
    silent = content_capture("Hel", finish=None)
    silent.done = False  # no error recorded (saved SSE text), but no end either
    empty = Capture(name="built", chunks=[Chunk(t=0.1, reasoning="r"),
                                          Chunk(t=0.2, finish_reason="stop")], done=True)
    return {
        "cut": (cut, "the stream failed (cut: the connection broke mid-stream after 2 chunks)"),
        "errored": (errored, "the stream failed (stream: the server sent an error event: "
                             "overloaded)"),
        "http": (refused, "the stream failed (http: HTTP 500: boom)"),
        "no-end": (silent, "the stream ended without a finish_reason or data: [DONE]"),
        "no-content": (empty, "nothing arrived on the content channel"),
    }


@pytest.mark.parametrize("kind", sorted(_failed_captures()))
def test_import_refuses_an_incomplete_capture_and_writes_nothing(kind, tmp_path, capsys):
    capture, reason = _failed_captures()[kind]
    capture.name = f"rec-{kind}"
    path = write_captures([capture], tmp_path / f"{kind}.capture.json")
    out = tmp_path / "out.yaml"
    assert main(["gateway", "import", str(path), "--out", str(out)]) == 2
    printed = capsys.readouterr()
    assert not out.exists() and printed.out == ""
    first, last = printed.err.splitlines()
    assert first.startswith(f"scrubcheck gateway import: cannot import capture 'rec-{kind}' "
                            f"({path}): {reason}")
    assert last == ("scrubcheck gateway: 1 of 1 capture(s) incomplete, nothing written; "
                    "record them again")


def test_import_of_saved_sse_text_that_just_stops_is_refused(tmp_path, capsys):
    path = tmp_path / "stops.sse"
    path.write_text(SSE[:SSE.index("data:{")], encoding="utf-8")  # no finish, no [DONE]
    assert main(["gateway", "import", str(path)]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and "capture 'stops'" in printed.err
    assert "without a finish_reason or data: [DONE]" in printed.err


def test_import_skip_failed_imports_the_others_and_counts_the_skipped(tmp_path, capsys):
    good = write_captures([sample("inline-closed")], tmp_path / "good.json")
    cut, _ = _failed_captures()["cut"]
    bad = write_captures([cut], tmp_path / "bad.json")
    out = tmp_path / "out.yaml"
    assert main(["gateway", "import", str(bad), str(good), "--out", str(out)]) == 2
    assert "pass --skip-failed to import the others" in capsys.readouterr().err
    assert not out.exists()
    assert main(["gateway", "import", str(bad), str(good), "--out", str(out),
                 "--skip-failed"]) == 0
    err = capsys.readouterr().err
    assert f"skipped capture 'built' ({bad}): the stream failed (cut:" in err
    assert "skipped 1 failed capture(s)" in err
    corpus = load_corpus([out])
    assert corpus.errors == [] and [s.id for s in corpus.scenarios] == ["gw-inline-closed"]


# ---------------------------------------------------------- capture files
def test_capture_file_round_trip_is_exact(tmp_path):
    capture = Capture(name="odd", chunks=[
        Chunk(t=0.5, role="assistant", content=""), Chunk(t=0.6, content="a\ud800b\u2028"),
        Chunk(t=0.7, reasoning="r"), Chunk(t=0.8, finish_reason="stop")],
        response={"status": 200}, done=True, started_at="2026-12-01T00:00:00.000+00:00",
        duration_s=0.9)
    path = write_captures([capture], tmp_path / "odd.json")
    (back,) = read_captures(path)
    assert back.to_dict() == capture.to_dict()
    assert back.content_deltas == ["", "a\ud800b\u2028"]
    assert back.chunks[2].content is None


def test_capture_file_errors_say_what_is_wrong():
    with pytest.raises(CaptureFileError, match="not JSON"):
        parse_captures("{oops", "f.json")
    with pytest.raises(CaptureFileError, match=r"f.json: not a scrubcheck capture file: at "
                                               r"captures/0/chunks/0: 't' is a required"):
        parse_captures('{"format": "scrubcheck-capture", "version": 1, "captures": [{"name": '
                       '"x", "source": "record", "request": {}, "response": {}, "finish_reason":'
                       ' null, "done": true, "error": null, "chunks": [{"content": "a"}]}]}',
                       "f.json")


def _document(chunks: list) -> dict:
    return {"format": "scrubcheck-capture", "version": 1, "captures": [
        {"name": "x", "source": "record", "request": {}, "response": {}, "finish_reason": None,
         "done": True, "error": None, "chunks": chunks}]}


ODD_VALUES = [0, 0.5, -1, -0.0, float("nan"), float("inf"), 2**70, True, None, "", "s",
              [], [{"index": 0}], {}]


@pytest.mark.parametrize("key", ["t", "content", "reasoning_content", "reasoning",
                                 "finish_reason", "role", "tool_calls", "logprobs"])
def test_quick_validation_accepts_only_what_the_schema_accepts(key):
    """Long captures are read without jsonschema looking at each chunk; what that quick
    path accepts must be exactly schema-valid, and the rest gets jsonschema's verdict."""
    from jsonschema import Draft202012Validator

    from scrubcheck.gateway.capture import _valid_quickly, capture_schema

    validator = Draft202012Validator(capture_schema())
    for value in ODD_VALUES:
        for chunk in ({key: value}, {"t": 0.25, key: value}):
            document = _document([{"t": 0.1, "content": "a"}, chunk])
            if _valid_quickly(document):
                assert validator.is_valid(document), chunk
            schema_says = validator.is_valid(document)
            try:
                parse_captures(json.dumps(document), "f.json")
                parsed = True
            except CaptureFileError:
                parsed = False
            assert parsed == schema_says, chunk


def test_a_long_capture_reads_quickly_and_a_bad_chunk_is_still_named():
    chunks = [{"t": i / 1000, "content": "x"} for i in range(65_536)]
    started = time.process_time()
    (capture,) = parse_captures(json.dumps(_document(chunks)), "long.json")
    assert len(capture.chunks) == 65_536
    assert time.process_time() - started < 3  # jsonschema alone took 5+ s per chunk list
    chunks[40_000] = {"t": 40.0, "content": 7}
    with pytest.raises(CaptureFileError, match=r"long.json: not a scrubcheck capture file: at "
                                               r"captures/0/chunks/40000/content: 7 is not "
                                               r"of type 'string'"):
        parse_captures(json.dumps(_document(chunks)), "long.json")


def test_check_rejects_a_file_that_is_no_capture(tmp_path, capsys):
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n", encoding="utf-8")
    assert main(["gateway", "check", str(path)]) == 2
    assert "neither a capture file" in capsys.readouterr().err


# ------------------------------------------------------------- SSE import
SSE = (': keep-alive comment\r\n'
       'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant",'
       '"content":""},"finish_reason":null}]}\r\n\r\n'
       'data: {"id":"c1","choices":[{"index":0,"delta":{"reasoning_content":"Hmm"}}]}\n\n'
       'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"<think>x</think>"}}]}\n\n'
       'data:{"id":"c1","choices":[{"index":0,"delta":{"content":"Hi\u2028!"},'
       '"finish_reason":"stop"}]}\n\n'
       'data: [DONE]\n\n')


def test_sse_import_reads_what_openai_sends():
    capture = capture_from_sse(SSE, "saved")
    assert capture.error is None and capture.done
    assert capture.content_deltas == ["", "<think>x</think>", "Hi\u2028!"]
    assert capture.reasoning_deltas == ["Hmm"]
    assert capture.finish_reason == "stop"
    assert capture.response == {"id": "c1", "model": "m"}
    assert capture.source == "sse-import"


def test_sse_data_lines_without_blank_lines_between_them():
    text = "\n".join(line for line in SSE.replace("\r\n", "\n").split("\n") if line)
    capture = capture_from_sse(text, "dense")
    assert capture.content_deltas == ["", "<think>x</think>", "Hi\u2028!"] and capture.done


def test_sse_multi_line_data_is_joined_per_the_standard():
    (event,) = iter_events('data: {"a":\ndata: 1}\n\n')
    assert event.data == '{"a":\n1}' and event.terminated


def test_sse_malformed_and_cut_keep_the_chunks_before():
    lines = SSE.split("\n\n")
    malformed = "\n\n".join(lines[:2] + ['data: {"id": "c1", "choices": [}'] + lines[2:])
    capture = capture_from_sse(malformed, "m", "saved.sse")
    assert len(capture.chunks) == 3
    assert capture.error.kind == "malformed"
    assert capture.error.message.startswith("saved.sse:8: malformed JSON in a data: line")
    assert capture.error.message.endswith("3 chunks kept")
    cut = capture_from_sse(SSE[:SSE.index('"content":"Hi')], "c", "saved.sse")
    assert cut.error.kind == "cut" and "the text ends inside an event" in cut.error.message
    assert cut.content_deltas == ["", "<think>x</think>"]


def test_sse_error_event_and_empty_text():
    capture = capture_from_sse('data: {"error": {"message": "quota exceeded"}}\n\n', "e")
    assert capture.error.kind == "stream" and "quota exceeded" in capture.error.message
    assert capture_from_sse("", "x", "empty.sse").error.message == \
        "empty.sse: no `data:` lines found"


def test_record_from_sse_and_check_on_sse(tmp_path, capsys, no_peers):
    saved = tmp_path / "proxy-log.sse"
    saved.write_text(SSE, encoding="utf-8")
    out = tmp_path / "proxy.capture.json"
    assert main(["gateway", "record", "--from-sse", str(saved), "--out", str(out)]) == 0
    (capture,) = read_captures(out)
    assert capture.name == "proxy-log" and capture.content_deltas[1] == "<think>x</think>"
    capsys.readouterr()
    assert main(["gateway", "check", str(saved)]) == 0
    assert "format:   duplicated:" in capsys.readouterr().out


def test_installed_peers_from_manifests_and_markers(monkeypatch):
    from scrubcheck.gateway.scrubbers import scrubber_specs

    manifest = types.SimpleNamespace
    peers = types.ModuleType("scrubcheck_test_peers")
    peers.shipped_manifests = lambda: [  # type: ignore[attr-defined]
        manifest(name="here", package="p1"), manifest(name="absent", package="p2")]
    peers.read_marker = lambda package: object() if package == "p1" else None  # type: ignore
    monkeypatch.setattr(gateway_scrubbers, "PEERS_MODULE", "scrubcheck_test_peers")
    monkeypatch.setitem(sys.modules, "scrubcheck_test_peers", peers)
    specs, note = scrubber_specs(["reference", "reference"])
    assert specs == ["reference", "peer:here"]
    assert note == "1 installed peer(s): peer:here"


def test_a_scrubber_that_cannot_load_is_an_error_row(capsys, no_peers):
    code = main(["gateway", "check", str(SAMPLES / "none.json"), "--scrubber",
                 "no_such_module_xyz:Scrubber"])
    out = capsys.readouterr().out
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("no_such_module_xyz"))
    assert "ERROR" in row and "cannot load" in row


def test_a_failed_stream_is_classified_on_what_arrived():
    capture = content_capture("<think>weighing the", " options", finish=None)
    capture.error = CaptureError("cut", "the connection broke mid-stream after 2 chunks")
    analysis = analyse(capture)
    assert analysis.answer == ""
    assert analysis.notes[0].startswith("the stream failed (cut: the connection broke")
