"""scrubcheck fuzz: input decoding, the fuzz target, the OSS-Fuzz layout and a short seeded
smoke run (the `fuzz` mark: deselect with -m 'not fuzz'; skipped, visibly, without atheris)."""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.commands import fuzz as fuzz_command
from scrubcheck.corpus import load_corpus
from scrubcheck.generate import Profile
from scrubcheck.hunt.assets import write_assets
from scrubcheck.hunt.fuzzing import FuzzSettings, _Fuzz, atheris_problem, fuzz
from scrubcheck.hunt.fuzzinput import decode, dictionary, encode_soup
from scrubcheck.hunt.fuzzmain import CappedText, instrumented_modules, read_known
from scrubcheck.hunt.sandbox import Sandbox
from scrubcheck.hunt.target import FuzzTarget
from scrubcheck.hunt.violation import PropertyFailure, failure_class
from scrubcheck.model import Context
from scrubcheck.scrubbers.broken import BROKEN

ROOT = Path(__file__).resolve().parent.parent
needs_atheris = pytest.mark.skipif(atheris_problem() is not None,
                                   reason=f"fuzz smoke run needs atheris: {atheris_problem()}")
LEAKY_SOUP = encode_soup(["Hi <thi", "nk>secret plan</think>ok"], Context())


def run_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    fuzz_command.add_arguments(parser)
    return fuzz_command.run(parser.parse_args(argv))


# -- decoding ------------------------------------------------------------------------------
def test_soup_inputs_keep_text_deltas_and_context():
    context = Context(starts_in_reasoning=True, inline_answer=True, finish_reason="length",
                      features=("bracket",))
    data = encode_soup(["a<think>", "b\u00e9", ""], context)
    case = decode(data, Profile(("bracket",))).case
    assert case.deltas == ("a<think>", "b\u00e9", "")
    assert case.context == context
    assert case.expected is None and case.other == tuple("a<think>b\u00e9")


def test_invalid_utf8_becomes_lone_surrogates_and_unknown_context_is_dropped():
    case = decode(bytes([0b111]) + b"x\xc3\xff\xed\xa0\x80", Profile((), frozenset())).case
    assert case.deltas == ("x\udcc3", "\udced\udca0\udc80")
    assert case.context == Context()


def test_structured_inputs_decode_deterministically_with_their_choices():
    data = bytes([0]) + bytes(range(7, 250, 3))
    first, again = decode(data, Profile()), decode(data, Profile())
    assert first.case == again.case and first.choices == again.choices
    assert first.case.stream is not None and first.case.expected is not None


def test_dictionary_lines_are_libfuzzer_strings():
    entries = dictionary()
    assert '"<think>"' in entries and '"</REASONING>"' in entries
    assert all(e.startswith('"') and e.endswith('"') and e.isascii() for e in entries)


# -- the target -----------------------------------------------------------------------------
def test_target_raises_a_property_failure_named_after_property_and_rule():
    target = FuzzTarget(load_adapter(BROKEN["stateless"]))
    with pytest.raises(PropertyFailure) as raised:
        target(LEAKY_SOUP)
    violation = raised.value.violation
    assert type(raised.value) is failure_class(violation.check, violation.rule)
    assert raised.traceback[-1].name == "_" + violation.check.replace("-", "_")
    FuzzTarget(load_adapter("reference"))(LEAKY_SOUP)  # the reference passes


def test_collect_mode_writes_the_input_and_goes_on(tmp_path):
    target = FuzzTarget(load_adapter(BROKEN["stateless"]), collect=tmp_path)
    target(LEAKY_SOUP)
    written = list(tmp_path.iterdir())
    assert len(written) == 1 and written[0].name.startswith("crash-")
    assert written[0].read_bytes() == LEAKY_SOUP and target.known


def test_fuzz_processes_instrument_the_scrubbers_modules(tmp_path):
    assert instrumented_modules("reference") == ("scrubcheck.scrubbers",)
    assert instrumented_modules("batch:mypkg.scrub:strip") == ("mypkg",)
    assert instrumented_modules("peer:hermes-stream") == ()
    assert instrumented_modules("path/to/s.py:S") == ("_scrubcheck_file_",)
    known = tmp_path / "known.txt"
    known.write_text("no-leak R-LEAK-1\n\nbroken\n", encoding="utf-8")
    assert read_known(str(known)) == {("no-leak", "R-LEAK-1")}


def test_a_crash_input_becomes_a_shrunk_lintable_scenario(tmp_path):
    crash = tmp_path / "crash-1"
    crash.write_bytes(encode_soup(["Sure.", " <think>", "x</think> done <THINK>y", "</THINK>"],
                                  Context()))
    code = run_command(["--scrubber", BROKEN["stateless"], "--input", str(crash),
                        "--out", str(tmp_path / "found"), "--work-dir", str(tmp_path / "w")])
    assert code == 1
    corpus = load_corpus([tmp_path / "found"])
    assert corpus.errors == [] and len(corpus.scenarios) == 1
    assert len("".join(corpus.scenarios[0].deltas)) < 30


def test_timeout_is_wall_clock_per_input_and_the_old_spelling_warns(tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="scrubcheck fuzz")
    fuzz_command.add_arguments(parser)
    assert parser.parse_args(["--timeout", "2.5"]).timeout == 2.5
    assert parser.parse_args(["--input-timeout", "3"]).timeout == 3.0
    assert "--input-timeout is deprecated; use --timeout" in capsys.readouterr().err
    assert parser.parse_args([]).timeout == 10.0
    options = FuzzSettings(timeout=2.5, memory_limit=512 << 20, work_dir=tmp_path)
    adapter = load_adapter("reference")
    with Sandbox(adapter) as sandbox:  # (never started: nothing is checked here)
        args = _Fuzz(adapter, None, options, None, sandbox).command(0, 10, tmp_path / "k")
        assert sandbox.starts == 0
    assert "-timeout=3" in args and "-rss_limit_mb=512" in args  # libFuzzer: whole seconds


def test_what_a_scrubber_prints_in_a_fuzz_job_is_capped():
    inner = io.StringIO()
    capped = CappedText(inner, limit=10)  # type: ignore[arg-type]
    for _ in range(1000):
        print("scrubber noise", file=capped)
    assert inner.getvalue().startswith("scrubber n\n[scrubcheck: more than")
    assert inner.getvalue().count("scrubber") == 1


def test_a_crash_input_of_a_segfaulting_scrubber_is_a_finding_not_the_end(tmp_path):
    """Replays run in the sandbox: the fuzz parent survives the scrubber it replays."""
    crash = tmp_path / "crash-input"
    crash.write_bytes(encode_soup(["Hi <think>x</think>"], Context()))
    hostile = ROOT / "tests/data/hostile/hostile_scrubbers.py"
    result = fuzz(f"{hostile}:Segfaults", FuzzSettings(work_dir=tmp_path / "w", timeout=5,
                                                       inputs=(crash,)))
    assert [(f.violation.check, f.rule) for f in result.findings] == [("crash",
                                                                          "R-ROBUST-1")]
    assert "SIGSEGV" in result.findings[0].violation.detail and result.errors == []


def test_seeds_dictionary_and_options_for_the_infrastructure(tmp_path):
    paths = write_assets(tmp_path, "scrubcheck_reference_fuzzer")
    assert [p.name for p in paths] == ["scrubcheck_reference_fuzzer_seed_corpus.zip",
                                       "scrubcheck_reference_fuzzer.dict",
                                       "scrubcheck_reference_fuzzer.options"]
    with zipfile.ZipFile(paths[0]) as archive:
        names = archive.namelist()
    assert len(names) > 100 and any(n.startswith("structured-") for n in names)


def test_seeds_come_through_the_corpus_loader_and_its_limits(tmp_path, monkeypatch):
    """The fuzzer reads the corpus as every other command does: generated families seed
    it too, and a file over the loader's size bound gives no seed."""
    from scrubcheck.corpus.coverage import is_generated
    from scrubcheck.corpus.loader import MAX_BYTES_ENV
    from scrubcheck.hunt.fuzzing import write_seeds

    scenarios = {s.id: s for s in load_corpus().scenarios}
    write_seeds(tmp_path / "all")
    seeded = [p.name for p in (tmp_path / "all").iterdir()
              if not p.name.startswith("structured-")]
    assert len(seeded) == 96 and set(seeded) <= set(scenarios)
    assert any(is_generated(scenarios[name]) for name in seeded)
    monkeypatch.setenv(MAX_BYTES_ENV, "1")  # every shipped file is over the bound
    write_seeds(tmp_path / "bounded")
    assert all(p.name.startswith("structured-") for p in (tmp_path / "bounded").iterdir())


def test_build_script_lays_out_one_fuzzer_per_scrubber(tmp_path):
    """fuzz/build.sh with the OSS-Fuzz helpers stubbed: what lands in $OUT."""
    src, out, stubs = tmp_path / "src", tmp_path / "out", tmp_path / "bin"
    for d in (src, out, stubs):
        d.mkdir()
    (stubs / "pip3").write_text("#!/bin/sh\nexit 0\n")
    (stubs / "compile_python_fuzzer").write_text('#!/bin/sh\ncp "$1" "$OUT/"\n')
    (stubs / "python3").write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    env = dict(os.environ, SRC=str(src), OUT=str(out), SCRUBCHECK_REPO=str(ROOT),
               PATH=f"{stubs}:{os.environ['PATH']}",
               SCRUBCHECK_FUZZ_SCRUBBERS=f"ref=scrubcheck.scrubbers.reference:ReferenceScrubber "
                                         f"stateless={BROKEN['stateless']}")
    subprocess.run(["bash", str(ROOT / "fuzz" / "build.sh")], env=env, check=True,
                   capture_output=True)
    made = sorted(p.name for p in out.iterdir())
    assert "scrubcheck_ref_fuzzer.py" in made and "scrubcheck_stateless_fuzzer.dict" in made
    text = (out / "scrubcheck_stateless_fuzzer.py").read_text()
    assert f'SCRUBBER = "{BROKEN["stateless"]}"' in text
    for name in ("project.yaml", "Dockerfile", "README.md"):
        assert (ROOT / "fuzz" / name).is_file()


# -- atheris smoke runs ------------------------------------------------------------------
@pytest.mark.fuzz
@needs_atheris
def test_the_oss_fuzz_target_script_runs_and_crashes_on_a_leak(tmp_path):
    script = ROOT / "fuzz" / "scrubber_fuzzer.py"
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "leak").write_bytes(LEAKY_SOUP)
    env = dict(os.environ, SCRUBCHECK_SCRUBBER=BROKEN["stateless"])
    done = subprocess.run([sys.executable, str(script), str(inputs), "-runs=0",
                           f"-artifact_prefix={tmp_path}/"], env=env, capture_output=True,
                          text=True, timeout=120)
    report = done.stdout + done.stderr
    assert done.returncode != 0 and "Uncaught Python exception" in report
    assert "R-" in report and list(tmp_path.glob("crash-*"))
    env["SCRUBCHECK_SCRUBBER"] = "reference"
    clean = subprocess.run([sys.executable, str(script), str(inputs), "-runs=40", "-seed=1",
                            f"-artifact_prefix={tmp_path}/ref-"], env=env, capture_output=True,
                           text=True, timeout=120)
    assert clean.returncode == 0, clean.stderr[-2000:]


@pytest.mark.fuzz
@needs_atheris
def test_fuzz_smoke_run_finds_a_leak_and_nothing_in_the_reference(tmp_path):
    leaks = fuzz(BROKEN["case_sensitive"], FuzzSettings(
        seconds=20, seed=1, work_dir=tmp_path / "broken", linear=False,
        stop=lambda f: f.is_leak))
    assert any(f.is_leak for f in leaks.findings), (leaks.errors, leaks.findings)
    clean = fuzz("reference", FuzzSettings(seconds=4, seed=1, work_dir=tmp_path / "ref",
                                          linear=False))
    assert clean.errors == [] and clean.findings == [] and clean.executions > 50


MINIMAL_PEER = ROOT / "docs/examples/minimal-peer/peer.toml"


@pytest.mark.fuzz
@needs_atheris
@pytest.mark.skipif(not MINIMAL_PEER.is_file(), reason="the example peer is not in this checkout")
def test_fuzz_drives_a_peer_through_the_protocol(tmp_path):
    options = FuzzSettings(seconds=20, seed=1, work_dir=tmp_path, linear=False,
                           stop=lambda f: f.is_leak)
    result = fuzz(f"peer:{MINIMAL_PEER}", options)
    assert any(f.is_leak for f in result.findings), (result.findings, result.errors)


def test_the_crash_scan_skips_inputs_being_written_and_ones_that_vanish(tmp_path, monkeypatch):
    """A job writes `.crash-<sha>.part` and renames it while the parent lists the folder:
    the scan must neither stat the partial file nor fail on a name gone since the listing."""
    from scrubcheck.hunt import fuzzing

    older, newer = tmp_path / "crash-aa", tmp_path / "timeout-bb"
    older.write_bytes(b"1")
    newer.write_bytes(b"2")
    os.utime(older, (1, 1))
    (tmp_path / ".crash-cc.part").write_bytes(b"3")
    real_iterdir = Path.iterdir

    def listing_with_a_ghost(self):
        yield from real_iterdir(self)
        yield self / "crash-dd"          # renamed or deleted between listing and stat

    monkeypatch.setattr(Path, "iterdir", listing_with_a_ghost)
    assert [p.name for p in fuzzing._artifacts_oldest_first(tmp_path)] == ["crash-aa", "timeout-bb"]
