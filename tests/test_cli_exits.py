"""Ending a command early (`| head`, Ctrl-C) gives no traceback, for every command.

Each test runs a real process: a closed pipe and SIGINT only behave for real
on real file descriptors. Every process is waited for, and killed on failure.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scrubcheck.cli import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED

SCRUBCHECK = [sys.executable, "-m", "scrubcheck.cli"]

# A child whose only command is the handler given as source, run through cli.main.
CHILD = """
import argparse, sys, time
from scrubcheck import cli

def handler(args):
{body}

parser = argparse.ArgumentParser(prog="scrubcheck")
sub = parser.add_subparsers(dest="command")
sub.add_parser("probe").set_defaults(handler=handler)
cli.build_parser = lambda: parser
sys.exit(cli.main(["probe"]))
"""


def _child(body: str) -> list[str]:
    return [sys.executable, "-c", CHILD.format(body=textwrap.indent(textwrap.dedent(body), "    "))]


def _with_closed_stdout(argv: list[str], cwd: Path | None = None) -> tuple[int, str]:
    """Run `argv` with a stdout pipe whose reader is gone before the first write."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
    try:
        process.stdout.close()
        _, err = process.communicate(timeout=240)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, err.decode("utf-8", "replace")


def test_coverage_into_a_closed_pipe_is_quiet_and_keeps_its_exit_code():
    normal = subprocess.run([*SCRUBCHECK, "coverage"], capture_output=True, text=True,
                            timeout=240)
    assert normal.stdout  # there is output to lose
    code, err = _with_closed_stdout([*SCRUBCHECK, "coverage"])
    assert (code, err) == (normal.returncode, normal.stderr)
    assert "Traceback" not in err


def test_run_into_a_closed_pipe_still_writes_its_reports_and_verdict(tmp_path):
    code, err = _with_closed_stdout([
        *SCRUBCHECK, "run", "--scrubber",
        "scrubcheck.scrubbers.broken.passthrough:PassthroughScrubber",
        "--id", "blocks-in-list-items", "--no-linear", "--jobs", "1", "--no-progress",
        "--out", str(tmp_path)])
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert code == 1  # the run's own verdict: passthrough leaks
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["counts"] == {"FAIL": 1}


def test_a_long_output_into_a_closed_pipe_runs_to_the_end(tmp_path):
    marker = tmp_path / "finished"
    code, err = _with_closed_stdout(_child(f"""
        for i in range(200_000):
            print("line", i)
        open({str(marker)!r}, "w").close()
        return 1
    """))
    assert (code, err) == (1, "") and marker.exists()


def test_a_command_that_trips_over_the_closed_pipe_itself_ends_quietly_with_141():
    code, err = _with_closed_stdout(_child("""
        sys.stdout.buffer.write(b"x" * 1_000_000)
        sys.stdout.buffer.flush()
        return 0
    """))
    assert (code, err) == (EXIT_BROKEN_PIPE, "")


def test_ctrl_c_prints_one_line_and_exits_130():
    process = subprocess.Popen(_child("""
        print("ready", flush=True)
        time.sleep(120)
        return 0
    """), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline() == "ready\n"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == EXIT_INTERRUPTED
    assert err == "scrubcheck probe: interrupted\n"


@pytest.mark.parametrize("argv", [["diff", "a.json"], []])
def test_usage_errors_keep_exit_2(argv, tmp_path):
    result = subprocess.run([*SCRUBCHECK, *argv], capture_output=True, text=True, timeout=120,
                            cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
