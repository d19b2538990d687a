"""The short summary for a CI job page: headline, worst scenarios first, bounded in size."""

from __future__ import annotations

import dataclasses

import report_sample as sample

from scrubcheck.reports import write_reports
from scrubcheck.reports.summary import (
    MAX_DIFF_LINES,
    MAX_LISTED,
    github_output_lines,
    headline,
    main,
    render_summary,
)
from scrubcheck.results import Failure, Outcome


def test_headline_counts_of_the_sample_run():
    head = headline(sample.sample_run())
    assert (head.total, head.passed, head.failed, head.leaked, head.errors,
            head.unsupported, head.skipped) == (11, 2, 4, 2, 2, 2, 1)
    assert (head.exit_code, head.verdict, head.spec_version) == (1, "FAIL", "1.0.0")
    assert github_output_lines(head) == ("total=11\npass=2\nfail=4\nleak=2\nerror=2\n"
                                         "unsupported=2\nskipped=1\nbeyond-claim=0\n"
                                         "class=generic\nexit-code=1\n"
                                         "verdict=FAIL\n")


def test_summary_gives_verdict_counts_areas_and_the_worst_scenarios_first():
    text = render_summary(sample.sample_run())
    assert text.startswith("## scrubcheck: `mypkg.scrub:ThinkStripper`\n")
    assert "**FAIL** at level MUST (exit code 1): 2 PASS · 4 FAIL · 1 ERROR" in text
    assert "2/11 scenarios pass; 2 scenarios leak reasoning to the user." in text
    assert "SPEC 1.0.0 · scrubcheck 0.1.0 · level MUST · seed 1234 · 6.2 s" in text
    assert "| unclosed  |" in text  # the area table
    listed = [line for line in text.splitlines() if line.startswith("- `")]
    assert [line.split("`")[1] for line in listed] == [
        "code::fence-closes-then-block", "robust::nul-and-surrogate",  # the leaks
        "blocks::back-to-back-newlines", "streaming::emit-decided-text",
        "unclosed::length-no-recovery", "unclosed::stop-recovery-long"]
    assert "FAIL (leaks reasoning): leak R-LEAK-1 in 13 chunkings" in listed[0]
    assert "Against the baseline" not in text
    assert "\x00" not in text and "<script>" not in text


def test_a_passing_run_lists_nothing():
    run = sample.sample_run()
    run.results = [r for r in run.results if r.outcome is Outcome.PASS]
    text = render_summary(run)
    assert "**PASS** at level MUST (exit code 0)" in text
    assert "2/2 scenarios pass; 0 scenarios leak" in text and "Failing scenarios" not in text


def test_summary_stays_short_for_a_huge_run():
    run = sample.sample_run()
    failing = next(r for r in run.results if r.scenario_id == "fence-closes-then-block")
    run.results = [dataclasses.replace(failing, scenario_id=f"leak-{n}") for n in range(5000)]
    diff = "s: 5000 regression(s)\n" + "".join(f"  REGRESSION leak-{n}: PASS -> LEAK\n"
                                               for n in range(5000))
    text = render_summary(run, diff)
    assert len(text.encode()) < 20_000  # GitHub caps a step summary at 1 MiB
    assert sum(line.startswith("- `") for line in text.splitlines()) == MAX_LISTED
    assert f"- … and {5000 - MAX_LISTED} more in report.md" in text
    assert f"… {5001 - MAX_DIFF_LINES} more lines in the job log" in text
    assert "0/5000 scenarios pass; 5000 scenarios leak" in text


def test_a_diff_is_fenced_whatever_it_holds():
    diff = "x: 1 regression(s)\n  REGRESSION a: PASS -> LEAK (new leak)\n```\n"
    text = render_summary(sample.sample_run(), diff)
    section = text.split("### Against the baseline\n\n", 1)[1]
    assert section.startswith("````text\nx: 1 regression(s)\n")  # a fence ``` cannot close


def test_an_interrupted_run_and_corpus_errors_are_said():
    run = sample.sample_run()
    run.interrupted, run.corpus_errors = True, ["corpora/x.yaml:3 [a]: bad key"]
    text = render_summary(run)
    assert "**INTERRUPTED**" in text and "**Interrupted**: the counts cover" in text
    assert "**1 corpus error**" in text


def test_main_prints_the_summary_and_appends_the_outputs(tmp_path, capsys):
    write_reports(sample.sample_run(), tmp_path, formats=("json",))
    outputs = tmp_path / "outputs"
    outputs.write_text("earlier=1\n")
    diff = tmp_path / "diff.txt"
    diff.write_text("mypkg: 0 regression(s), 0 fix(es), 0 other change(s)\n")
    code = main([str(tmp_path / "report.json"), "--diff", str(diff),
                 "--github-output", str(outputs)])
    assert code == 0
    assert capsys.readouterr().out == render_summary(sample.sample_run(), diff.read_text())
    assert outputs.read_text().startswith("earlier=1\ntotal=11\npass=2\n")


def test_main_refuses_what_it_cannot_read(tmp_path, capsys):
    assert main([str(tmp_path / "missing.json")]) == 2
    assert f"cannot read {tmp_path / 'missing.json'}: No such file" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main([str(bad)]) == 2
    assert f"cannot read {bad}" in capsys.readouterr().err
    write_reports(sample.sample_run(), tmp_path, formats=("json",))
    assert main([str(tmp_path / "report.json"), "--diff", str(tmp_path / "nope.txt")]) == 2
    assert f"cannot read {tmp_path / 'nope.txt'}" in capsys.readouterr().err


def test_a_failed_scrubber_wide_check_is_listed():
    run = sample.sample_run()
    run.results = [r for r in run.results if r.outcome is Outcome.PASS]
    check = run.scrubber_checks[0]
    check.outcome = Outcome.FAIL
    check.failures = [Failure(check="linear", rule="R-ROBUST-2", level="MUST",
                              chunking="char", deltas=[], detail="ratio 7.9")]
    text = render_summary(run)
    assert "- `scrubber::linear-time`" in text and "**FAIL**" in text
