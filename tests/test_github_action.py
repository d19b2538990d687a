"""The GitHub Action (action.yml) and the workflows: linted, checked against GitHub's
metadata syntax, and their shell steps run here as GitHub would run them.

GitHub cannot run in a test, but a composite action is mostly bash: the steps below
are taken from action.yml as written and run with `bash --noprofile --norc -eo pipefail`
(GitHub's `shell: bash`), their `env:` filled from the inputs, `github.action_path` and
earlier steps' outputs, with GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, against the real
scrubcheck on a tiny selection. Only the `uses:` steps (setup-python, upload-artifact) do
not run; which ones were passed over is asserted, never silent. pip is always stubbed (a
`python3` first on PATH records what `-m pip` was asked and runs everything else): the
install step must never replace the checkout's own installation.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION_FILE = ROOT / "action.yml"
ACTION = yaml.safe_load(ACTION_FILE.read_text(encoding="utf-8"))
WORKFLOWS = sorted([*(ROOT / "docs/examples/github").glob("*.yml"),
                    *(ROOT / ".github/workflows").glob("*.yml")])
BIN = Path(sys.executable).parent  # python3, scrubcheck, jactionlint and shellcheck
PASSTHROUGH = "scrubcheck.scrubbers.broken.passthrough:PassthroughScrubber"
#: Two scenarios, one chunking family short: a run takes a few seconds.
TINY = {"ids": "blocks-at-line-*", "jobs": "1",
        "args": "--no-linear --random-chunkings 1"}

# -- the metadata syntax --------------------------------------------------------------------
# Written from GitHub's "Metadata syntax reference" for composite actions:
# https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax
# (name and description required; inputs with a description, string defaults; outputs of
# a composite action need `value`; each `run` step of a composite action needs `shell`).
_STRING = {"type": "string"}
ACTION_SCHEMA = {
    "type": "object",
    "required": ["name", "description", "runs"],
    "additionalProperties": False,
    "properties": {
        "name": _STRING, "author": _STRING, "description": _STRING,
        "branding": {"type": "object", "additionalProperties": False,
                     "properties": {"icon": _STRING, "color": _STRING}},
        "inputs": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["description"], "additionalProperties": False,
            "properties": {"description": _STRING, "required": {"type": "boolean"},
                           "default": _STRING, "deprecationMessage": _STRING}}},
        "outputs": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["description", "value"],
            "additionalProperties": False,
            "properties": {"description": _STRING, "value": _STRING}}},
        "runs": {
            "type": "object", "required": ["using", "steps"], "additionalProperties": False,
            "properties": {"using": {"const": "composite"}, "steps": {
                "type": "array", "minItems": 1, "items": {"oneOf": [
                    {"type": "object", "required": ["run", "shell"],
                     "not": {"required": ["uses"]}},
                    {"type": "object", "required": ["uses"],
                     "not": {"anyOf": [{"required": ["run"]}, {"required": ["shell"]}]}},
                ], "properties": {
                    "name": _STRING, "id": _STRING, "if": _STRING, "run": _STRING,
                    "shell": _STRING, "uses": _STRING, "working-directory": _STRING,
                    "continue-on-error": {"type": ["boolean", "string"]},
                    "env": {"type": "object", "additionalProperties": _STRING},
                    "with": {"type": "object",
                             "additionalProperties": {"type": ["string", "number",
                                                               "boolean"]}},
                }, "additionalProperties": False}}},
        },
    },
}
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def test_action_follows_githubs_metadata_syntax():
    jsonschema.validate(ACTION, ACTION_SCHEMA)
    broken = json.loads(json.dumps(ACTION))
    del broken["runs"]["steps"][1]["shell"]  # the schema can fail: a run step without shell
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, ACTION_SCHEMA)


def test_every_expression_names_a_declared_input_or_step():
    inputs, steps = set(ACTION["inputs"]), {s["id"] for s in _steps() if "id" in s}
    text = ACTION_FILE.read_text(encoding="utf-8")
    used = set()
    for expression in EXPRESSION.findall(text):
        for kind, name in re.findall(r"\b(inputs|steps)\.([\w-]+)", expression):
            assert name in (inputs if kind == "inputs" else steps), expression
            used.add(name)
    assert inputs <= used, f"inputs never used: {sorted(inputs - used)}"


def test_no_script_expands_an_expression():
    """Inputs reach scripts only through env: `${{ }}` in a script is code injection."""
    for step in _steps():
        assert "${{" not in step.get("run", ""), step["name"]


# -- the linter -----------------------------------------------------------------------------
def _tool(name: str) -> str:
    """A linter of the test extra; missing, it fails in CI and skips (visibly) elsewhere."""
    found = shutil.which(name, path=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    if found is None:
        message = f"{name} is not installed (pip install -e '.[test]')"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def _jactionlint(*args: str) -> subprocess.CompletedProcess:
    linter = _tool("jactionlint")
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")  # + shellcheck
    return subprocess.run([linter, "--no-online", "--no-color", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


#: The examples name scrubcheck by a branch; the reader pins the release they use.
EXAMPLE_PIN = r'action "scrubcheck/scrubcheck@[^"]+" must be pinned'


@pytest.mark.parametrize("path", [ACTION_FILE, *WORKFLOWS],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_jactionlint_passes(path):
    done = _jactionlint("--ignore", EXAMPLE_PIN, str(path.relative_to(ROOT)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not found" not in done.stderr, done.stderr  # shellcheck ran on the scripts


def test_jactionlint_catches_a_broken_action(tmp_path):
    """The linter really reads a composite action: shell, inputs and scripts."""
    broken = ACTION_FILE.read_text(encoding="utf-8")
    broken = broken.replace("${{ inputs.scrubber }}", "${{ inputs.scrubbr }}")
    broken = broken.replace('code=0\n          scrubcheck "${args[@]}"',
                            'code=0\n          scrubcheck ${args[@]}')
    (tmp_path / "action.yml").write_text(broken, encoding="utf-8")
    done = _jactionlint(str(tmp_path / "action.yml"))
    assert done.returncode == 1
    assert '"scrubbr" is not defined' in done.stdout and "SC2068" in done.stdout


def test_examples_use_only_declared_inputs():
    uses = [(path, step) for path in WORKFLOWS
            for job in yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"].values()
            for step in job["steps"]
            if step.get("uses", "").startswith(("scrubcheck/scrubcheck@", "./"))]
    assert uses
    for path, step in uses:
        given = set(step.get("with", {}))
        assert given <= set(ACTION["inputs"]), (path.name, given - set(ACTION["inputs"]))
        assert given & {"scrubber", "merge"}, path.name


# -- running the steps ----------------------------------------------------------------------
def _steps() -> list[dict]:
    return ACTION["runs"]["steps"]


@dataclass
class ActionRun:
    """What a local run of the action's steps left behind."""

    workspace: Path
    log: str = ""
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)  # step id -> outputs
    failed: str | None = None  # name of the step that failed (later steps did not run)
    exit_code: int = 0
    passed_over: list[str] = field(default_factory=list)  # `uses:` and skipped steps

    @property
    def summary(self) -> str:
        path = self.workspace / "step-summary.md"
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def output(self, name: str) -> str:
        """An output of the action, from its `outputs:` mapping."""
        match = EXPRESSION.fullmatch(ACTION["outputs"][name]["value"])
        step, key = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", match[1]).groups()
        return self.outputs.get(step, {}).get(key, "")


def run_action(workspace: Path, inputs: dict[str, str]) -> ActionRun:
    """Run the action's bash steps in `workspace` as GitHub would, in order; what pip was
    asked to install is in `workspace/pip.log`, one NUL-separated line per call."""
    workspace.mkdir(parents=True, exist_ok=True)
    stubs = workspace / ".stubs"
    stubs.mkdir(exist_ok=True)
    log = workspace / "pip.log"
    (stubs / "python3").write_text(
        '#!/bin/bash\nif [ "$1 $2" = "-m pip" ]; then\n'
        f'  shift 3; printf "%s\\0" "$@" >> "{log}"; echo >> "{log}"; exit 0\n'
        f'fi\nexec "{sys.executable}" "$@"\n')
    (stubs / "python3").chmod(0o755)
    unknown = set(inputs) - set(ACTION["inputs"])
    assert not unknown, f"not inputs of action.yml: {unknown}"
    values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    values.update(inputs)
    run = ActionRun(workspace)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    base["PATH"] = os.pathsep.join([str(stubs), str(BIN), os.environ["PATH"]])
    for number, step in enumerate(_steps()):
        name = step.get("name", f"step {number}")
        if "uses" in step or not _condition(step.get("if"), values):
            run.passed_over.append(name)
            continue
        output_file = workspace / f".output-{number}"
        output_file.write_text("")
        script = workspace / f".step-{number}.sh"
        script.write_text(step["run"], encoding="utf-8")
        env = dict(base, GITHUB_OUTPUT=str(output_file), RUNNER_TEMP=str(workspace),
                   GITHUB_STEP_SUMMARY=str(workspace / "step-summary.md"),
                   GITHUB_WORKSPACE=str(workspace), GITHUB_ACTION_PATH=str(ROOT))
        env.update({key: _expand(value, values, run.outputs)
                    for key, value in step.get("env", {}).items()})
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                              cwd=workspace, env=env, capture_output=True, text=True,
                              timeout=300)
        run.log += f"== {name} (exit {done.returncode})\n{done.stdout}{done.stderr}"
        if "id" in step:
            run.outputs[step["id"]] = _read_outputs(output_file)
        if done.returncode:
            run.failed, run.exit_code = name, done.returncode
            break
    return run


def _condition(condition: str | None, values: dict[str, str]) -> bool:
    """The `if:` forms the bash steps use; anything else is an error, never a guess."""
    if condition is None:
        return True
    match = re.fullmatch(r"inputs\.([\w-]+) != ''", condition.strip())
    if match is None:
        raise ValueError(f"the test runner cannot evaluate if: {condition}")
    return values[match[1]] != ""


def _expand(value: str, values: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    def one(match: re.Match) -> str:
        expression = match[1]
        if expression == "github.action_path":
            return str(ROOT)
        if found := re.fullmatch(r"inputs\.([\w-]+)", expression):
            return values[found[1]]
        if found := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression):
            return outputs.get(found[1], {}).get(found[2], "")  # GitHub: empty when unset
        raise ValueError(f"the test runner cannot evaluate ${{{{ {expression} }}}}")

    return EXPRESSION.sub(one, value)


def _read_outputs(path: Path) -> dict[str, str]:
    outputs = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        assert "<<" not in line.partition("=")[0], "multi-line outputs are not used"
        key, sep, value = line.partition("=")
        assert sep, f"not key=value in GITHUB_OUTPUT: {line!r}"
        outputs[key] = value
    return outputs


def _command(run: ActionRun) -> str:
    """The scrubcheck command line the run step echoed."""
    return next(line for line in run.log.splitlines() if line.startswith("scrubcheck "))


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> Path:
    """A reference run through the action, without a baseline: the gate passes."""
    workspace = tmp_path_factory.mktemp("reference")
    run = run_action(workspace, {"scrubber": "reference", **TINY})
    assert run.failed is None, run.log
    assert run.passed_over == ["Set up Python", "Compare with the baseline",
                               "Upload the reports"]
    assert (run.output("exit-code"), run.output("verdict")) == ("0", "PASS")
    assert (run.output("total"), run.output("pass"), run.output("leak")) == ("2", "2", "0")
    assert run.output("artifact-name") == "scrubcheck-report"
    reports = workspace / "scrubcheck-report"
    assert {"report.md", "report.json", "junit.xml", "report.html", "badge.json"} <= {
        p.name for p in reports.iterdir()}
    assert json.loads((reports / "badge.json").read_text())["message"] == \
        "generic: 2/2 pass, 0 leak"
    assert "## scrubcheck: `reference`" in run.summary and "**PASS** at level MUST" in \
        run.summary
    assert "the gate passes (fail-on: failures)" in run.log
    path = workspace / "baseline.json"
    shutil.copy(reports / "report.json", path)
    return path


def test_a_regression_against_the_baseline_fails_the_gate(tmp_path, baseline):
    run = run_action(tmp_path, {"scrubber": PASSTHROUGH, "baseline": str(baseline), **TINY})
    assert (run.failed, run.exit_code) == ("Gate", 1), run.log
    assert run.output("exit-code") == "1" and run.output("regression") == "true"
    assert run.output("leak") == "2" and run.output("verdict") == "FAIL"
    assert f"::error title=scrubcheck::regression against {baseline}" in run.log
    assert "### Against the baseline" in run.summary
    assert "REGRESSION blocks-at-line-end: PASS -> LEAK (new leak)" in run.summary
    assert "REGRESSION" in (tmp_path / "scrubcheck-report/baseline-diff.txt").read_text()


def test_the_same_run_against_its_baseline_passes(tmp_path, baseline):
    run = run_action(tmp_path, {"scrubber": "reference", "baseline": str(baseline), **TINY})
    assert run.failed is None, run.log
    assert run.output("regression") == "false"
    assert "0 regression(s)" in run.summary
    assert "the gate passes (fail-on: regressions)" in run.log


def test_known_failures_pass_with_a_baseline_unless_failures_are_asked_for(tmp_path):
    first = run_action(tmp_path / "a", {"scrubber": PASSTHROUGH, **TINY})
    assert (first.failed, first.exit_code) == ("Gate", 1)
    assert "::error title=scrubcheck::the scrubber fails at level must" in first.log
    known = tmp_path / "known.json"
    shutil.copy(tmp_path / "a/scrubcheck-report/report.json", known)
    again = run_action(tmp_path / "b", {"scrubber": PASSTHROUGH, "baseline": str(known),
                                        **TINY})
    assert again.failed is None and again.output("regression") == "false", again.log
    strict = run_action(tmp_path / "c", {"scrubber": PASSTHROUGH, "baseline": str(known),
                                         "fail-on": "failures", **TINY})
    assert (strict.failed, strict.exit_code) == ("Gate", 1)
    lenient = run_action(tmp_path / "d", {"scrubber": PASSTHROUGH, "fail-on": "nothing",
                                          **TINY})
    assert lenient.failed is None and lenient.output("fail") == "2"


def test_a_broken_baseline_is_bad_input_not_a_regression(tmp_path):
    bad = tmp_path / "baseline.json"
    bad.write_text("{not json")
    run = run_action(tmp_path, {"scrubber": "reference", "baseline": str(bad), **TINY})
    assert (run.failed, run.exit_code) == ("Gate", 2), run.log
    assert run.output("regression") == "false"
    assert "could not compare with" in run.log and "exited 2" in run.log


def test_a_scrubber_that_does_not_load_fails_with_its_reason(tmp_path, baseline):
    stale = tmp_path / "scrubcheck-report/report.json"  # from an earlier run: not this one's
    stale.parent.mkdir(parents=True)
    shutil.copy(baseline, stale)
    run = run_action(tmp_path, {"scrubber": "no_such_module:Nothing", **TINY})
    assert not stale.exists()
    assert (run.failed, run.exit_code) == ("Gate", 2), run.log
    assert "cannot load scrubber" in run.log
    assert "no report (scrubcheck exited 2" in run.summary
    assert run.output("pass") == ""  # no counts are made up


def test_filters_and_args_reach_scrubcheck_unexpanded(tmp_path):
    (tmp_path / "blocks-at-line-x").write_text("a file the shell could glob to")
    run = run_action(tmp_path, {"scrubber": "reference", "areas": "blocks, code",
                                "rules": "R-BLOCK-*", "summary": "false", "seed": "7",
                                "report-dir": "out dir", **TINY})
    assert run.failed is None, run.log
    assert _command(run) == (
        "scrubcheck run --scrubber reference --level must --out out dir --no-progress "
        "--jobs 1 --seed 7 --area blocks --area code --rule R-BLOCK-* --id blocks-at-line-* "
        "--no-linear --random-chunkings 1")
    assert (tmp_path / "out dir/report.json").is_file() and run.summary == ""
    assert run.output("total") == "2" and run.output("report-dir") == "out dir"


def test_shard_is_passed_only_when_given(tmp_path):
    """`--shard K/N` goes to `scrubcheck run` exactly when the input is set."""
    whole = run_action(tmp_path / "whole", {"scrubber": "reference", **TINY})
    assert "--shard" not in _command(whole)
    part = run_action(tmp_path / "part", {"scrubber": "reference", "shard": "1/2", **TINY})
    assert "--shard 1/2" in _command(part)
    assert part.output("artifact-name") == "scrubcheck-report-shard-1-of-2"
    has_shard = "--shard" in subprocess.run([BIN / "scrubcheck", "run", "--help"],
                                            capture_output=True, text=True).stdout
    if has_shard:
        assert part.failed is None and int(part.output("total")) <= 2, part.log
    else:  # an older scrubcheck: a usage error, and the gate says so
        assert (part.failed, part.exit_code) == ("Gate", 2)
        assert "unrecognized arguments: --shard 1/2" in part.log


def test_merge_mode_merges_the_shard_reports(tmp_path, baseline):
    for name in ("shard-1", "shard-2"):
        (tmp_path / "shards" / name).mkdir(parents=True)
        shutil.copy(baseline, tmp_path / "shards" / name / "report.json")
    run = run_action(tmp_path, {"merge": "shards/*/report.json",
                                "baseline": str(baseline)})
    assert _command(run) == ("scrubcheck merge shards/shard-1/report.json "
                             "shards/shard-2/report.json --out scrubcheck-report")
    if run.output("exit-code") == "2":  # no merge command, or a refusal: the gate says so
        assert (run.failed, run.exit_code) == ("Gate", 2)
        assert "::error title=scrubcheck::scrubcheck exited 2" in run.log
    else:  # merged: summarized and gated like a run
        assert run.output("total") and run.output("regression") in ("true", "false")


def test_without_scrubber_or_merge_nothing_runs(tmp_path):
    run = run_action(tmp_path, {})
    assert (run.failed, run.exit_code) == ("Gate", 2)
    assert "give the input scrubber (or merge)" in run.log
    assert not any(line.startswith("scrubcheck ") for line in run.log.splitlines())


@pytest.mark.parametrize(("inputs", "installs"), [
    ({}, [[str(ROOT)]]),
    ({"scrubcheck-package": "scrubcheck==0.1.0", "install": "-e . -r req s.txt"},
     [["scrubcheck==0.1.0"], ["-e", ".", "-r", "req", "s.txt"]]),
], ids=["the-action-checkout", "a-version-and-the-callers-package"])
def test_install_step(tmp_path, inputs, installs):
    """What the install step asks pip for (pip is stubbed: nothing is installed)."""
    run = run_action(tmp_path, {"scrubber": "reference", "fail-on": "nothing", **TINY,
                                **inputs})
    assert run.failed is None, run.log
    lines = (tmp_path / "pip.log").read_text().splitlines()
    asked = [line.strip("\0").split("\0") for line in lines]
    assert asked == [["--disable-pip-version-check", *args] for args in installs]


def test_the_examples_readme_documents_every_input_and_output():
    text = (ROOT / "docs/examples/github/README.md").read_text(encoding="utf-8")
    for name in [*ACTION["inputs"], *ACTION["outputs"]]:
        assert f"`{name}`" in text, name


# -- ClusterFuzzLite ------------------------------------------------------------------------
def test_clusterfuzzlite_build_packages_the_reference_target(tmp_path):
    """.clusterfuzzlite/build.sh with the image's helpers stubbed: the fuzz target of fuzz/
    for the reference scrubber, with its seeds, dictionary and options, lands in $OUT.
    (.clusterfuzzlite/build_locally.sh does the real PyInstaller build; fuzz/README.md.)"""
    src, out, stubs = tmp_path / "src", tmp_path / "out", tmp_path / "bin"
    for folder in (src, out, stubs):
        folder.mkdir()
    (stubs / "pip3").write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path}/pip.log"\n')
    (stubs / "compile_python_fuzzer").write_text(
        f'#!/bin/sh\necho "$@" >> "{tmp_path}/compile.log"\ncp "$1" "$OUT/"\n')
    (stubs / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRUBCHECK_")}
    env.update(SRC=str(src), OUT=str(out), SCRUBCHECK_REPO=str(ROOT),
               PATH=f"{stubs}{os.pathsep}{os.environ['PATH']}")
    subprocess.run(["bash", str(ROOT / ".clusterfuzzlite/build.sh")], env=env, check=True,
                   capture_output=True, timeout=300)
    assert sorted(p.name for p in out.iterdir()) == [
        "scrubcheck_reference_fuzzer.dict", "scrubcheck_reference_fuzzer.options",
        "scrubcheck_reference_fuzzer.py", "scrubcheck_reference_fuzzer_seed_corpus.zip"]
    target = (out / "scrubcheck_reference_fuzzer.py").read_text(encoding="utf-8")
    assert 'SCRUBBER = "scrubcheck.scrubbers.reference:ReferenceScrubber"' in target
    assert (tmp_path / "pip.log").read_text().split() == ["install", str(ROOT)]
    assert "--hidden-import scrubcheck.scrubbers.reference" in (
        tmp_path / "compile.log").read_text()
    dockerfile = (ROOT / ".clusterfuzzlite/Dockerfile").read_text(encoding="utf-8")
    assert "FROM gcr.io/oss-fuzz-base/base-builder-python" in dockerfile
    assert "COPY .clusterfuzzlite/build.sh $SRC/build.sh" in dockerfile
    assert yaml.safe_load((ROOT / ".clusterfuzzlite/project.yaml").read_text()) == {
        "language": "python"}
    for workflow in (ROOT / ".github/workflows").glob("cflite_*.yml"):
        for job in yaml.safe_load(workflow.read_text(encoding="utf-8"))["jobs"].values():
            build = next(s for s in job["steps"] if "build_fuzzers" in s["uses"])
            assert build["with"]["language"] == "python", workflow.name


def test_clusterfuzzlite_scripts_pass_shellcheck():
    scripts = sorted((ROOT / ".clusterfuzzlite").glob("*.sh"))
    done = subprocess.run([_tool("shellcheck"), *map(str, scripts)], capture_output=True, text=True,
                          timeout=60)
    assert len(scripts) == 2 and done.returncode == 0, done.stdout
