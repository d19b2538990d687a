"""report.md: header facts, counts in every table, worst-first failures, reproductions."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import report_sample as sample

from scrubcheck.reports import visible_whitespace, write_reports
from scrubcheck.reports.markdown import render_markdown
from scrubcheck.results import Outcome


def table_row(markdown: str, first_cell: str) -> list[str]:
    """The cells of the table row whose first cell is `first_cell`."""
    for line in markdown.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if cells and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no table row starting with {first_cell!r}")


def section(markdown: str, title: str) -> str:
    """The text of the `## title` section."""
    start = markdown.index(f"## {title}")
    end = markdown.find("\n## ", start + 1)
    return markdown[start:end if end >= 0 else None]


def test_header_names_the_scrubber_versions_seed_and_totals(sample_run) -> None:
    md = render_markdown(sample_run)
    assert md.startswith(f"# scrubcheck report: `{sample.SCRUBBER}`")
    assert table_row(md, "kind")[1] == "stream"
    assert table_row(md, "supported features")[1] == "namespaced"
    assert table_row(md, "accepted context")[1] == "starts_in_reasoning, finish_reason"
    assert table_row(md, "scrubcheck")[1] == "0.1.0 (SPEC 1.0.0)"
    assert table_row(md, "seed")[1] == str(sample.SEED)
    assert table_row(md, "level")[1] == "MUST"
    assert table_row(md, "duration")[1] == "6.25 s"
    # 10 scenarios + the scrubber-wide check: 40+60+40+120+3+500+2 chunkings
    assert table_row(md, "ran")[1] == (
        "11 scenarios, 1 scrubber-wide check, 765 chunkings, 4013 checks")
    assert table_row(md, "capped")[1] == (
        "1216 chunking variants not run (long inputs, declared restrictions)")


def test_summary_counts_every_outcome_and_groups_reasons(sample_run) -> None:
    md = section(render_markdown(sample_run), "Summary")
    assert ("**FAIL** at level MUST (exit code 1): 2 PASS · 4 FAIL · 1 ERROR · 1 TIMEOUT · "
            "2 UNSUPPORTED · 1 SKIPPED") in md
    assert "**UNSUPPORTED** (2):" in md
    assert ("- scrubber does not support feature 'harmony' (1): `features::harmony-analysis`"
            in md)
    assert "- excluded by --exclude-label slow (1): `features::kimi-triangles`" in md
    assert "Scrubber-wide checks (run once per scrubber): 1 PASS" in md


def test_reasons_are_grouped_without_the_scrubber_name(sample_run) -> None:
    for result in sample_run.results:
        if result.outcome is Outcome.UNSUPPORTED:
            result.reason = f"{sample.SCRUBBER}: does not declare feature(s) harmony"
    md = section(render_markdown(sample_run), "Summary")
    assert ("- does not declare feature(s) harmony (2): `features::harmony-analysis`, "
            "`features::bracket-think`") in md


def test_long_id_lists_are_cut(sample_run) -> None:
    template = next(r for r in sample_run.results if r.outcome is Outcome.SKIPPED)
    sample_run.results += [dataclasses.replace(template, scenario_id=f"gen-{i}") for i in range(40)]
    md = section(render_markdown(sample_run), "Summary")
    line = next(x for x in md.splitlines() if x.startswith("- excluded by"))
    assert line.startswith("- excluded by --exclude-label slow (41): `features::kimi-triangles`")
    assert line.endswith("`features::gen-28` and 11 more")


def test_unsupported_and_skipped_are_shown_even_when_zero(sample_run) -> None:
    sample_run.results = [r for r in sample_run.results if r.outcome is Outcome.PASS]
    md = section(render_markdown(sample_run), "Summary")
    assert "**PASS** at level MUST (exit code 0): 2 PASS · 0 FAIL" in md
    assert "0 UNSUPPORTED · 0 SKIPPED" in md
    assert "**UNSUPPORTED** (0): none" in md and "**SKIPPED** (0): none" in md


def test_area_table_counts(sample_run) -> None:
    md = section(render_markdown(sample_run), "By area")
    assert table_row(md, "unclosed") == ["unclosed", "2", "0", "0", "**1**", "**1**", "0", "0"]
    assert table_row(md, "features") == ["features", "3", "0", "0", "0", "0", "2", "1"]
    assert table_row(md, "code") == ["code", "2", "1", "**1**", "0", "0", "0", "0"]


def test_rule_table_counts_scenarios_naming_each_rule(sample_run) -> None:
    md = section(render_markdown(sample_run), "By SPEC rule")
    vocab3 = table_row(md, "R-VOCAB-3")
    assert vocab3[1:3] == ["MUST", "enabled features behave like family tags"]
    assert vocab3[3:] == ["3", "0", "0", "0", "0", "2", "1"]
    assert table_row(md, "R-ROBUST-2")[3:5] == ["1", "1"]  # the scrubber-wide check
    assert table_row(md, "R-STREAM-2")[1] == "SHOULD"
    assert table_row(md, "R-IDEM-1")[3] == "0"  # rules no scenario names are listed too


def test_failures_table_puts_leaks_first_and_counts_similar_chunkings(sample_run) -> None:
    md = section(render_markdown(sample_run), "Failures by rule and check")
    rows = [line for line in md.splitlines() if line.startswith("| R-")]
    assert [r.split("|")[1].strip() for r in rows] == [
        "R-LEAK-1", "R-TRUNC-1", "R-WS-1", "R-CODE-2", "R-STREAM-2"]
    assert table_row(md, "R-LEAK-1")[2:] == ["leak", "yes", "1", "13"]  # 2 listed + 11 similar
    assert table_row(md, "R-STREAM-2")[1] == "SHOULD"


def test_failing_scenarios_are_ordered_leaks_then_must_then_should(sample_run) -> None:
    md = section(render_markdown(sample_run), "Failing scenarios")
    headings = re.findall(r"^### \d+\. `([^`]+)`: (.*)$", md, flags=re.MULTILINE)
    assert headings == [("code::fence-closes-then-block", "leaks reasoning"),
                        ("robust::nul-and-surrogate", "leaks reasoning"),
                        ("blocks::back-to-back-newlines", "fails a MUST"),
                        ("streaming::emit-decided-text", "fails a SHOULD")]


def test_reproduction_is_the_chunking_with_fewest_deltas(sample_run) -> None:
    md = section(render_markdown(sample_run), "Failing scenarios")
    assert table_row(md, "[1]") == ["[1]", "leak", "R-LEAK-1", "MUST", "recorded (3 deltas)",
                                     "13"]
    assert table_row(md, "[2]") == ["[2]", "expected", "R-CODE-2", "MUST", "whole (1 delta)", "1"]
    leak = md[md.index("#### [1] leak · R-LEAK-1"):md.index("#### [2] expected · R-CODE-2")]
    assert "13 failing chunkings (char, recorded and 11 similar)" in leak
    assert "chunking: recorded (3 deltas), failed after feed(deltas[1])" in leak
    assert "deltas:   ['```py\\nx = 1\\n```\\n<think>', 'the secret plan is here'" in leak
    replay = sample.replay("fence-closes-then-block", "recorded")
    assert f"```sh\n{replay}\n```" in leak
    # the content holds ``` so the fence around it must be longer
    assert "````text\n" in leak


def test_expected_and_got_show_whitespace_and_the_difference(sample_run) -> None:
    md = section(render_markdown(sample_run), "Failing scenarios")
    ws = md[md.index("#### [1] expected · R-WS-1"):]
    assert f"expected: {visible_whitespace('A' + chr(10) * 2 + 'B and C')}\n" in ws
    assert f"got:      {visible_whitespace('A' + chr(10) + 'B and C')}\n" in ws
    assert "\n            ^\n" in ws  # under the third character of both lines
    assert "the outputs differ only in whitespace" in ws
    assert "detail:   blank line after the removed block was dropped" in ws


def test_a_check_failing_on_the_same_deltas_does_not_repeat_them(sample_run) -> None:
    scenario = next(r for r in sample_run.results if r.scenario_id == "fence-closes-then-block")
    scenario.failures[2] = dataclasses.replace(
        scenario.failures[2], deltas=scenario.failures[1].deltas, chunking="recorded")
    md = section(render_markdown(sample_run), "Failing scenarios")
    expected = md[md.index("#### [2] expected · R-CODE-2"):]
    assert "deltas:   as in [1]\n" in expected
    assert "deltas:   ['```py" in md[md.index("#### [1] leak"):md.index("#### [2] expected")]


def test_every_failing_check_has_a_replay_command(sample_run) -> None:
    md = render_markdown(sample_run)
    commands = re.findall(r"```sh\n(.*)\n```", md)
    # one per (scenario, check, rule): leak + expected, truncation, expected, holdback
    assert commands == [
        sample.replay("fence-closes-then-block", "recorded"),
        sample.replay("fence-closes-then-block", "whole"),
        sample.replay("nul-and-surrogate", "cut@18"),
        sample.replay("back-to-back-newlines", "split@31"),
        sample.replay("emit-decided-text", "char"),
    ]


def test_caps_notes_and_holdback_are_reported(sample_run) -> None:
    md = section(render_markdown(sample_run), "Failing scenarios")
    assert ("chunking variants not run (long input, or a restriction the scrubber declares: "
            "every-split: 1200, random: 16)") in md
    assert "idempotence was checked on the first 4096 characters only" in md
    assert "Hold-back: batch mode, at most 42 characters held, up to 42 behind the output due." \
        in md


def test_invisible_characters_never_reach_the_file(sample_run, tmp_path: Path) -> None:
    (path,) = write_reports(sample_run, tmp_path, formats=["md"])
    text = path.read_bytes().decode("utf-8")  # strict: a lone surrogate would fail here
    assert "\x00" not in text
    assert "got:      ok\\x00hidden" in text and "\\udc80" in text


def test_html_in_descriptions_is_escaped_but_code_spans_are_kept(sample_run) -> None:
    md = render_markdown(sample_run)
    assert "\\<script>alert('pwned')\\</script>\\</think>" in md
    assert "> After a closed fence, `<think>` opens a block again." in md


def test_errors_timeouts_and_corpus_errors_are_listed(sample_run) -> None:
    sample_run.corpus_errors = ["corpora/bad.yaml:7 [dup-id]: duplicate id 'dup-id'"]
    md = render_markdown(sample_run)
    assert "**CORPUS ERROR** at level MUST (exit code 2)" in md
    assert "- `corpora/bad.yaml:7 [dup-id]: duplicate id 'dup-id'`" in section(md, "Corpus errors")
    errors = section(md, "Errors and timeouts")
    assert "### ERROR: `unclosed::length-no-recovery`" in errors
    assert "### TIMEOUT: `unclosed::stop-recovery-long`" in errors
    assert "`corpora/unclosed.yaml:52`: `exceeded the 10 s scenario time limit`" in errors
    # the harness traceback is kept whole, in a code block
    assert f"**Note:**\n\n```text\n{sample.TRACEBACK.strip()}\n```" in errors


def test_pipes_in_cells_do_not_break_tables(sample_run) -> None:
    check = dataclasses.replace(sample_run.scrubber_checks[0], reason="a | b")
    sample_run.scrubber_checks[0] = check
    md = section(render_markdown(sample_run), "Scrubber-wide checks")
    assert table_row(md, "linear-time")[-1] == "a \\| b"


def test_level_should_makes_should_failures_count(sample_run) -> None:
    sample_run.results = [r for r in sample_run.results if r.scenario_id in (
        "emit-decided-text", "split-open-inside-name")]
    assert "**PASS** at level MUST (exit code 0)" in render_markdown(sample_run)
    sample_run.settings["level"] = "should"
    assert "**FAIL** at level SHOULD (exit code 1)" in render_markdown(sample_run)
