"""Two slugs, one home each: corpus ids (corpus.streams.slug) and file names for a
scrubber spec (adapters.resolve.spec_slug).

They differ on purpose: a corpus id is [a-z0-9]+(-[a-z0-9]+)* (SPEC ids are compared
as text, and the committed corpus holds them), while a report or cache folder keeps a
spec's case and dots so `pkg.mod:Cls` stays readable. Each once had two copies.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from scrubcheck.adapters.resolve import spec_slug
from scrubcheck.commands.run import slug as run_slug
from scrubcheck.corpus.streams import slug
from scrubcheck.gateway.importer import slug as capture_slug
from scrubcheck.hunt.database import open_database

CORPUS_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def test_corpus_slugs():
    assert slug("scratch_pad") == "scratch-pad"
    assert slug("<|Begin of Thought|>") == "begin-of-thought"
    assert slug("思考") == ""
    assert slug("思考", fallback="capture") == "capture"


def test_a_capture_slug_is_the_corpus_slug_with_a_fallback():
    assert capture_slug("Qwen/Qwen3-8B") == slug("Qwen/Qwen3-8B") == "qwen-qwen3-8b"
    assert capture_slug("???") == "capture"


@given(st.text())
def test_a_corpus_slug_is_an_id_or_empty(text):
    value = slug(text)
    assert value == "" or CORPUS_ID.fullmatch(value)
    assert CORPUS_ID.fullmatch(capture_slug(text))


def test_spec_slugs_keep_case_and_dots():
    assert spec_slug("pkg.mod:Cls") == "pkg.mod-Cls"
    assert spec_slug("stream:./my scrubber.py:Scrub") == "stream-.-my-scrubber.py-Scrub"
    assert spec_slug(":::") == "scrubber"
    assert len(spec_slug("x" * 300)) == 120


def test_run_and_hunt_name_their_folders_by_the_one_spec_slug(tmp_path):
    assert run_slug is spec_slug
    database = open_database("pkg.mod:Cls", str(tmp_path)).inner
    assert Path(database.path) == tmp_path / spec_slug("pkg.mod:Cls")
