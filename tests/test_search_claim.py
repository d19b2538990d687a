"""hunt and fuzz within a conformance class (SPEC section 12, `--claim`).

A search judges a scrubber on the class it claims, as `run` does: the streams it draws
hold no delimiter beyond the class, follow the class's template (pre-fill, skipping)
and, in an exact class, its letter case; a finding says the class and replays in it.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import yaml

from scrubcheck.adapters import load_adapter
from scrubcheck.claims import text_beyond
from scrubcheck.commands import fuzz as fuzz_command
from scrubcheck.commands import hunt as hunt_command
from scrubcheck.generate import ListChooser, Profile
from scrubcheck.hunt import HuntSettings, hunt
from scrubcheck.hunt.as_scenario import finding_yaml
from scrubcheck.hunt.case import build_case
from scrubcheck.hunt.fuzzinput import decode
from scrubcheck.hunt.target import FuzzTarget
from scrubcheck.scrubbers.broken import BROKEN
from scrubcheck.vocabulary import conformance_classes

THINK_ONLY = str(Path(__file__).parent / "data" / "claims" / "think_only.py") + ":ThinkOnly"
CLASSES = [c for c in conformance_classes() if c != "generic"]


def _settings(**overrides: object) -> HuntSettings:
    options: dict[str, object] = dict(seconds=60.0, seed=5, database="memory", linear=False,
                                      examples=300, shrink=False)
    options.update(overrides)
    return HuntSettings(**options)  # type: ignore[arg-type]


@pytest.mark.parametrize("cls", CLASSES)
def test_every_drawn_case_is_within_the_class_and_follows_its_template(cls: str) -> None:
    from scrubcheck.formats import registered_formats

    fmt = registered_formats()[cls]
    profile = Profile.of(load_adapter("reference"), conformance_class=cls)
    rng = random.Random(cls)
    drawn = 0
    for _ in range(400):
        case = build_case(ListChooser([rng.randrange(256) for _ in range(200)]), profile)
        if case is None:
            continue
        drawn += 1
        assert text_beyond(case.text, cls) is None, case.text
        context = case.context
        assert context.conformance_class == cls
        assert not context.features and not context.delimiters
        if fmt.template.prefills_open == "never":
            assert not context.starts_in_reasoning
        if fmt.template.prefills_open == "always":
            assert context.starts_in_reasoning
        if not fmt.template.may_skip_reasoning:
            assert not context.may_skip_reasoning
    assert drawn > 100, f"only {drawn} of 400 draws were usable in class {cls}"


def test_a_think_only_scrubber_fails_the_generic_hunt_and_passes_its_class() -> None:
    generic = hunt(THINK_ONLY, _settings(conformance_class="generic"))
    claimed = hunt(THINK_ONLY, _settings())  # None: the class it claims
    assert generic.conformance_class == "generic"
    assert any(f.rule == "R-LEAK-1" for f in generic.findings)
    assert claimed.conformance_class == "think"
    assert claimed.findings == [] and claimed.errors == []
    assert claimed.examples >= 300


def test_a_broken_scrubber_is_still_caught_within_a_class() -> None:
    result = hunt(BROKEN["stateless"], _settings(conformance_class="think"))
    leaks = [f for f in result.findings if f.rule == "R-LEAK-1"]
    assert leaks, [f.rule for f in result.findings]
    text = finding_yaml(leaks[0])
    assert "--claim think" in text
    entry = yaml.safe_load(text)[0]
    # a corpus has no class: the saved scenario states the stream as the generic class reads it
    assert "conformance_class" not in entry.get("context", {})


def test_a_feature_class_finding_enables_its_feature_in_the_saved_scenario() -> None:
    result = hunt(BROKEN["stateless"], _settings(conformance_class="bracket"))
    assert result.findings
    finding = result.findings[0]
    entry = yaml.safe_load(finding_yaml(finding))[0]
    assert entry["context"]["features"] == ["bracket"]
    assert "--claim bracket" in entry["source"]


def test_fuzz_inputs_decode_within_the_class() -> None:
    target = FuzzTarget(load_adapter("reference"), conformance_class="kimi-xtml")
    rng = random.Random(7)
    decoded = 0
    for i in range(300):
        data = bytes([i % 256]) + bytes(rng.randrange(256) for _ in range(120))
        case = decode(data, target.profile).case
        if case is None:
            continue
        decoded += 1
        assert case.context.conformance_class == "kimi-xtml"
        assert text_beyond(case.text, "kimi-xtml") is None
    assert decoded > 50


def test_an_unknown_class_or_an_unusable_format_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for command in (hunt_command, fuzz_command):
        parser = __import__("argparse").ArgumentParser()
        command.add_arguments(parser)
        args = parser.parse_args(["--scrubber", "reference", "--claim", "nosuch", "--time", "1"])
        assert command.run(args) == 2
        assert "unknown conformance class 'nosuch'" in capsys.readouterr().err
        bad = tmp_path / "bad.yaml"
        bad.write_text("format: 1\nname: bad\n", encoding="utf-8")
        args = parser.parse_args(["--scrubber", "reference", "--formats", str(bad),
                                  "--time", "1"])
        assert command.run(args) == 2
        err = capsys.readouterr().err
        assert "bad.yaml:" in err


def test_a_users_format_is_hunted_in_its_own_class(tmp_path: Path) -> None:
    """--formats then --claim: the throwaway format's delimiters are all the hunt draws."""
    fmt = tmp_path / "acme-think.yaml"
    fmt.write_text(
        "format: 1\nname: acme-think\ntitle: A throwaway format\n"
        "sources: [{url: 'https://example.org/acme', shows: 'nothing real'}]\n"
        "generic: none\ncase: exact\n"
        "template: {prefills_open: never, may_skip_reasoning: false}\n"
        "delimiters:\n  - {kind: special-token-pair, open: '<|acme_a|>', close: '<|acme_b|>'}\n",
        encoding="utf-8")
    pid = os.fork()
    if pid == 0:  # the registry is per process: register in a child, report by exit code
        code = 1
        try:
            from scrubcheck.vocabulary import register_formats

            register_formats([fmt])
            result = hunt("reference", _settings(conformance_class="acme-think", examples=150))
            broken = hunt(BROKEN["stateless"], _settings(conformance_class="acme-think"))
            code = 0 if (not result.findings and result.examples >= 150
                         and any(f.rule == "R-LEAK-1" for f in broken.findings)
                         and "<|acme_a|>" in "".join(broken.findings[0].violation.deltas)
                         ) else 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
