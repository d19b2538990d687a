"""Hostile scrubbers through `scrubcheck hunt` and `scrubcheck matrix`: bounded wall time,
the right verdict, a finished summary.

Each command runs as a real process in a session of its own (a segfault or `os._exit` in
the scrubber must not take pytest with it, and whatever the command leaves running is
killed with its process group when the test ends). Every bound below is computed from
`--timeout` and the size of the job, as a generous worst case: measured on a loaded
two-core machine, the hunts took 8-22 s (bound 48 s, all eight at once), the quadratic
hunt 6 s (90 s), the hostile matrix 20 s (119 s) and the quadratic one 11 s (60 s).
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import bounded
import pytest
import yaml
from bounded import Finished

HOSTILE = Path(__file__).resolve().parent / "data" / "hostile" / "hostile_scrubbers.py"
QUADRATIC = "scrubcheck.scrubbers.broken.quadratic_rescan:QuadraticRescanScrubber"

TIMEOUT = 2.0  # --timeout: wall-clock seconds per case (hunt) or scenario (matrix)
MEMORY = "512M"  # --memory-limit: Allocates stops here instead of eating the machine
STARTUP = 20.0  # starting Python, loading the corpus and the scrubber, on a loaded machine
MAX_EXAMPLES = 12  # hunt: cases per run
NOISE = "scrubber noise"  # what Prints writes on stdout and stderr

# hunt: every case may cost the whole timeout (those after the first hang cost less), and
# so may the linear-time measurement and one case of the shrinker's
HUNT_BOUND = STARTUP + TIMEOUT * (MAX_EXAMPLES + 2)
# The linear-time check measures a ratio of runs that take seconds by design: at 2 s it
# reports itself unmeasured on a loaded machine, so the quadratic scrubber gets more.
LINEAR_TIMEOUT = 5.0
LINEAR_HUNT_BOUND = STARTUP + LINEAR_TIMEOUT * (MAX_EXAMPLES + 2)

# fixture -> (the property hunt must report, what its detail must say)
HUNT_EXPECTED: dict[str, tuple[str, str]] = {
    "Sleeps": ("timeout", f"no answer within {TIMEOUT:g} s (wall clock)"),
    "BlocksOnSocket": ("timeout", f"no answer within {TIMEOUT:g} s (wall clock)"),
    "Spins": ("timeout", f"no answer within {TIMEOUT:g} s (wall clock)"),
    "Segfaults": ("crash", "killed by signal SIGSEGV"),
    "Exits": ("crash", "exit code 3"),
    "Raises": ("robust", "RuntimeError: hostile scrubber raised on purpose"),
    "Prints": ("no-leak", "visible"),
    "Allocates": ("robust", "MemoryError"),  # (the limit is named: see below)
}

SUMMARY = re.compile(r"^scrubcheck hunt --scrubber (\S+): (\d+) distinct findings? in "
                     r"[\d.]+ s$", re.MULTILINE)
FINDING_LINE = re.compile(r"^  (MUST|SHOULD) +(R-[A-Z0-9-]+) +(\S+) +[\d.]+ s +(\S+)$",
                          re.MULTILINE)


def scrubcheck(argv: list[str], bound: float, cwd: Path) -> Finished:
    """Run `scrubcheck ARGV`; fail if it is still running after `bound` seconds. Its whole
    process group is killed at the end, whatever happened."""
    return bounded.scrubcheck(*argv, bound_s=bound, cwd=cwd)


# -- hunt ------------------------------------------------------------------------------------
def hunt(name: str, where: Path) -> tuple[Finished, Path]:
    """`scrubcheck hunt` on a hostile fixture, judged against HUNT_BOUND by its test
    (killed there): how it ended, and where it saved its findings."""
    argv = ["hunt", "--scrubber", f"{HOSTILE}:{name}", "--time", "60", "--max-examples",
            str(MAX_EXAMPLES), "--timeout", f"{TIMEOUT:g}", "--seed", "1", "--database",
            "memory", "--memory-limit", MEMORY, "--out", str(where / "found")]
    return bounded.scrubcheck(*argv, bound_s=HUNT_BOUND, cwd=where, must_finish=False), \
        where / "found"


@pytest.fixture(scope="module")
def hunts(tmp_path_factory):
    """Every hostile fixture hunted at once (most of them only wait, so the file's time is
    the slowest hunt's, not the sum); each is judged against its own bound."""
    where = {name: tmp_path_factory.mktemp(name) for name in HUNT_EXPECTED}
    with ThreadPoolExecutor(len(where)) as waiting:  # each its own end time
        return dict(zip(where, waiting.map(hunt, where, where.values()), strict=True))


@pytest.mark.parametrize("name", sorted(HUNT_EXPECTED))
def test_hunt_survives_a_hostile_scrubber_and_reports_it(hunts, name):
    done, saved_dir = hunts[name]
    assert not done.overran, f"hunt of {name} still running after {HUNT_BOUND:g} s (killed)"
    print(f"hunt {name}: {done.seconds:.1f} s (bound {HUNT_BOUND:g} s)")
    spec = f"{HOSTILE}:{name}"
    assert done.code == 1, done.err[-2000:]
    assert "Traceback" not in done.err, done.err[-2000:]
    summary = SUMMARY.search(done.out)
    assert summary is not None and summary.group(1) == spec, done.out[-2000:]
    found = {(m.group(2), m.group(3)): m.group(4) for m in FINDING_LINE.finditer(done.out)}
    assert int(summary.group(2)) == len(found) > 0
    prop, says = HUNT_EXPECTED[name]
    rule = "R-LEAK-1" if prop == "no-leak" else "R-ROBUST-1"
    assert (rule, prop) in found, found
    saved = (saved_dir / f"{found[(rule, prop)]}.yaml").read_text(encoding="utf-8")
    assert says in saved, saved
    if name == "Allocates":
        assert "memory limit of 512 MiB" in saved
    if prop in ("timeout", "crash"):  # the case that hung or crashed, as a scenario
        [scenario] = yaml.safe_load(saved)  # its stream holds the trigger, in any chunking
        assert "<think>" in "".join(scenario["deltas"]), scenario["deltas"]
    assert NOISE not in done.out and NOISE not in done.err  # captured, never printed
    assert "\x1b[2J" not in done.out


def test_hunt_reports_a_quadratic_scrubber_under_the_same_budget(tmp_path):
    done = scrubcheck(["hunt", "--scrubber", QUADRATIC, "--time", "60", "--max-examples",
                       str(MAX_EXAMPLES), "--timeout", f"{LINEAR_TIMEOUT:g}", "--seed", "1",
                       "--database", "memory"], LINEAR_HUNT_BOUND, tmp_path)
    print(f"hunt quadratic: {done.seconds:.1f} s (bound {LINEAR_HUNT_BOUND:g} s)")
    assert done.code == 1, done.out[-2000:] + done.err[-2000:]
    found = {(m.group(2), m.group(3)) for m in FINDING_LINE.finditer(done.out)}
    assert ("R-ROBUST-2", "linear") in found, done.out[-2000:]
    assert SUMMARY.search(done.out) is not None


# -- matrix ----------------------------------------------------------------------------------
# Two scenarios: one with a block (every hostile misbehaves on it), one without `<think>`
# in its text (the reuse check's poison streams still have one).
MATRIX_IDS = ("blocks-mid-line", "unicode-fullwidth-brackets-literal")
HOSTILE_ROWS = {f"{HOSTILE}:{name}": name for name in HUNT_EXPECTED}


def row_bound(timeout: float) -> float:
    """A row's worst case: its linear-time check and each scenario may cost the timeout,
    and a worker's replacement after a kill or a crash a few seconds more."""
    return timeout * (1 + len(MATRIX_IDS)) + 5.0


def matrix_bound(rows: int, timeout: float) -> float:
    return STARTUP + (1 + rows) * row_bound(timeout)  # (the reference row too)


# fixture -> (verdicts it must get, what its linear-time check must say)
MATRIX_EXPECTED: dict[str, tuple[set[str], set[str]]] = {
    "Sleeps": ({"ERROR"}, {"TIMEOUT"}),
    "BlocksOnSocket": ({"ERROR"}, {"TIMEOUT"}),
    "Spins": ({"ERROR"}, {"TIMEOUT"}),
    "Segfaults": ({"ERROR"}, {"ERROR"}),
    "Exits": ({"ERROR"}, {"ERROR"}),
    "Raises": ({"ERROR"}, {"ERROR"}),
    "Prints": ({"LEAK", "PASS"}, {"PASS", "TIMEOUT"}),  # its printing slows the measurement
    "Allocates": ({"ERROR"}, {"ERROR"}),
}


def run_matrix(out: Path, specs: list[str], timeout: float) -> Finished:
    argv = ["matrix", "--no-peers", "--quick", "--jobs", "2", "--timeout", f"{timeout:g}",
            "--memory-limit", MEMORY, "--out", str(out), "--no-progress"]
    for scenario in MATRIX_IDS:
        argv += ["--id", scenario]
    for spec in specs:
        argv += ["--scrubber", spec]
    bound = matrix_bound(len(specs), timeout)
    done = scrubcheck(argv, bound, out)
    print(f"matrix of {1 + len(specs)} rows: {done.seconds:.1f} s (bound {bound:g} s)")
    return done


@pytest.fixture(scope="module")
def hostile_matrix(tmp_path_factory):
    out = tmp_path_factory.mktemp("matrix")
    return out, run_matrix(out, list(HOSTILE_ROWS), TIMEOUT)


def _rows(out: Path) -> dict[str, dict]:
    data = json.loads((out / "matrix.json").read_text(encoding="utf-8"))
    return {row["spec"]: row for row in data["rows"]}


def test_matrix_finishes_and_writes_the_page(hostile_matrix):
    out, done = hostile_matrix
    assert done.code == 0, done.err[-2000:]
    assert "Traceback" not in done.err, done.err[-2000:]
    for name in ("matrix.md", "matrix.html", "matrix.json"):
        assert f"wrote {out / name}" in done.out
    html = (out / "matrix.html").read_text(encoding="utf-8")
    assert all(name in html for name in MATRIX_EXPECTED)
    assert "Selection: 2 of the" in (out / "matrix.md").read_text(encoding="utf-8")
    assert NOISE not in done.out and NOISE not in done.err


def test_matrix_reference_row_is_unaffected(hostile_matrix):
    out, _ = hostile_matrix
    reference = _rows(out)["reference"]
    assert reference["status"] == "ran"
    assert reference["verdicts"] == dict.fromkeys(MATRIX_IDS, "PASS")
    # at 2 s the measurement may not fit a loaded machine, which it then says; never worse
    assert reference["linear_time"] in ("PASS", "TIMEOUT")


@pytest.mark.parametrize("name", sorted(MATRIX_EXPECTED))
def test_matrix_bounds_and_judges_each_hostile_row(hostile_matrix, name):
    out, _ = hostile_matrix
    row = _rows(out)[f"{HOSTILE}:{name}"]
    verdicts, linear = MATRIX_EXPECTED[name]
    assert row["status"] == "ran"
    assert set(row["verdicts"]) == set(MATRIX_IDS)
    assert set(row["verdicts"].values()) <= verdicts, row["verdicts"]
    assert row["linear_time"] in linear
    assert row["duration_s"] <= row_bound(TIMEOUT), row["duration_s"]
    assert (out / row["report"]).is_file()
    if name == "Prints":
        assert row["verdicts"]["blocks-mid-line"] == "LEAK"


def test_matrix_passes_the_timeout_and_memory_limit_through(hostile_matrix):
    out, _ = hostile_matrix
    data = json.loads((out / "matrix.json").read_text(encoding="utf-8"))
    assert data["settings"]["timeout_s"] == TIMEOUT
    assert data["settings"]["memory_limit"] == 512 << 20


def test_matrix_fails_a_quadratic_scrubber_on_linear_time_alone(tmp_path):
    done = run_matrix(tmp_path, [QUADRATIC], LINEAR_TIMEOUT)
    assert done.code == 0, done.err[-2000:]
    row = _rows(tmp_path)[QUADRATIC]
    assert row["verdicts"] == dict.fromkeys(MATRIX_IDS, "PASS")
    assert row["linear_time"] == "FAIL"
    assert row["duration_s"] <= row_bound(LINEAR_TIMEOUT)
