"""Scrubber modules that misbehave while they are imported, before any scenario runs.

Every entry point loads the scrubber's spec in its own process before it forks the
workers, so a module that hangs, segfaults, exits or floods stdout *at import* once
took `scrubcheck` (or pytest, through the plugin) down with it. The spec is now
loaded in a child first (scrubcheck.runner.preflight); each command here must end
within a bound derived from that child's time limit, exit 2 (the plugin: a
collection error, pytest's exit 2) with one line naming the spec, what happened and
the end of what the module printed, and never pass the module's output through.
The fixtures are in tests/data/hostile/imports/.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import bounded
import pytest
from bounded import Finished

from scrubcheck.runner.preflight import LOAD_FLOOR_S, load_timeout

IMPORTS = Path(__file__).resolve().parent / "data" / "hostile" / "imports"
CORPUS = Path(__file__).resolve().parents[1] / "corpora" / "blocks.yaml"
TIMEOUT = 2.0  # --timeout; the trial load gets LOAD_FLOOR_S, as an import may be slow
STARTUP = 40.0  # Python, the corpus, forking, on a loaded two-core machine (all at once)
BOUND = load_timeout(TIMEOUT) + STARTUP  # a hang costs the trial load's limit, and no more
ID = "blocks-mid-line"

# fixture -> what the refusal says happened, and the end of what the module printed
REFUSED = {
    "import_hangs": (f"got no result within {LOAD_FLOOR_S:g} s wall time",
                     "importing the scrubber hangs", "connecting to the tokenizer service"),
    "import_segfaults": ("failed: the worker process died (killed by signal SIGSEGV)",
                         "importing the scrubber ends its process",
                         "loading the native tokenizer"),
    "import_floods": (f"got no result within {LOAD_FLOOR_S:g} s wall time",
                      "importing the scrubber hangs", r"\x1b[2J\x1b[Himport noise on stdout"),
}


def spec(name: str) -> str:
    return f"{IMPORTS / name}.py:Scrubber"


def run_command(name: str, *extra: str) -> list[str]:
    return [*bounded.SCRUBCHECK, "run", "--scrubber", spec(name), "--id", ID, "--jobs", "1",
            "--timeout", f"{TIMEOUT:g}", "--no-progress", *extra]


def plugin_command(name: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
            "--scrubber", spec(name), "--scrubcheck-corpus", str(CORPUS),
            "--scrubcheck-timeout", f"{TIMEOUT:g}", "--scrubcheck-jobs", "1", "-k", ID, *extra]


@pytest.fixture(scope="module")
def refusals(tmp_path_factory) -> dict[tuple[str, str], Finished]:
    """Every (entry point, fixture) of REFUSED at once: the hangs only wait, so the file
    costs one trial load's limit, not six; each is still judged against BOUND."""
    where = tmp_path_factory.mktemp("plugin")
    (where / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    commands = {("run", name): run_command(name) for name in REFUSED}
    commands |= {("plugin", name): plugin_command(name) for name in REFUSED}

    def finish(command: list[str]) -> Finished:
        return bounded.run(command, bound_s=BOUND, cwd=where, env=env, must_finish=False)

    with ThreadPoolExecutor(len(commands)) as waiting:
        return dict(zip(commands, waiting.map(finish, commands.values()), strict=True))


def _judged(done: Finished) -> Finished:
    print(f"{' '.join(done.command[-12:])}: {done.seconds:.1f} s (bound {BOUND:g} s)")
    assert not done.overran, f"still running after {BOUND:g} s (killed):\n{done.text[-2000:]}"
    assert "\x1b" not in done.text  # a printed escape is quoted (\\x1b), never passed on
    assert "Traceback" not in done.text, done.text[-3000:]
    assert len(done.text) < 20_000, len(done.text)  # the flood stayed in the child
    return done


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_run_refuses_a_module_that_misbehaves_at_import(refusals, name):
    done = _judged(refusals["run", name])
    happened, why, printed = REFUSED[name]
    assert done.code == 2, done.text[-3000:]
    assert done.out == ""
    [line] = done.err.splitlines()  # one line
    assert line.startswith(f"scrubcheck run: cannot load scrubber: {spec(name)}: a trial load "
                           f"in a child process {happened}"), line
    assert why in line and ", so it is not loaded into scrubcheck; it printed [" in line, line
    assert printed in line.split("; it printed [", 1)[1], line


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_the_plugin_fails_collection_on_a_module_that_misbehaves_at_import(refusals, name):
    done = _judged(refusals["plugin", name])
    happened, why, printed = REFUSED[name]
    assert done.code == pytest.ExitCode.INTERRUPTED, done.text[-3000:]  # a collection error
    assert "ERROR collecting scrubcheck" in done.out
    [line] = [line for line in done.out.splitlines() if line.startswith("cannot load scrubber")]
    assert line.startswith(f"cannot load scrubber {spec(name)!r}: {spec(name)}: a trial load in "
                           f"a child process {happened}"), line
    assert why in line and printed in line.split("; it printed [", 1)[1], line
    assert "Interrupted: 1 error during collection" in done.out


QUICK_BOUND = 60.0  # no hang: starting Python, loading the corpus, one trial load


@pytest.mark.parametrize(("name", "happened"), [
    ("import_exits", "a trial load in a child process failed: the worker process died (exit "
                     "code 3): importing the scrubber ends its process, so it is not loaded "
                     "into scrubcheck"),
    ("import_sys_exit", "loading it raised SystemExit: no GPU found, giving up"),
])
def test_run_refuses_a_module_that_exits_at_import(name, happened):
    done = _judged(bounded.run(run_command(name), bound_s=QUICK_BOUND))
    assert done.code == 2, done.text
    assert done.err == f"scrubcheck run: cannot load scrubber: {spec(name)}: {happened}\n"


@pytest.mark.parametrize("argv", [
    ["show", ID, "--timeout", "2"],
    ["matrix", "--no-peers", "--quick", "--id", ID, "--jobs", "1", "--timeout", "2",
     "--no-progress"],
    ["hunt", "--time", "5", "--timeout", "2", "--database", "memory", "--no-linear"],
], ids=["show", "matrix", "hunt"])
def test_every_entry_point_refuses_a_module_that_crashes_at_import(argv, tmp_path):
    command = argv[0]
    if command == "matrix":
        argv = [*argv, "--out", str(tmp_path / "matrix")]
    done = _judged(bounded.scrubcheck(*argv, "--scrubber", spec("import_segfaults"),
                                      bound_s=QUICK_BOUND, cwd=tmp_path))
    assert done.code == 2, done.text
    assert done.err.startswith(f"scrubcheck {command}: cannot load scrubber: "
                               f"{spec('import_segfaults')}: a trial load in a child process "
                               "failed: the worker process died (killed by signal SIGSEGV)"), \
        done.err
    assert not (tmp_path / "matrix").exists()  # refused before anything ran


def test_what_a_working_module_prints_at_import_stays_off_the_console(tmp_path):
    """A module that prints 40,000 lines (escape codes, stderr, C's printf) while it is
    imported, then works: the run goes on, and none of it reaches the console."""
    done = _judged(bounded.run(run_command("import_chatty", "--no-linear"),
                               bound_s=QUICK_BOUND))
    assert done.code == 0, done.text[-3000:]
    assert "chatty import" not in done.text and "result: PASS at level must (exit 0)" in done.out
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    plugin = _judged(bounded.run(plugin_command("import_chatty", "-s"),  # no capture
                                 bound_s=QUICK_BOUND, cwd=tmp_path))
    assert plugin.code == pytest.ExitCode.OK, plugin.text[-3000:]
    assert "chatty import" not in plugin.text and "1 passed" in plugin.out


def test_a_trial_load_is_bounded_by_the_timeout_but_never_below_the_floor():
    assert load_timeout(2.0) == LOAD_FLOOR_S
    assert load_timeout(600.0) == 600.0
