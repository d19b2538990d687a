"""An explanation written to disk: its JSON, its Markdown, one bug report per root
cause, and the smallest streams as a corpus file that `scrubcheck show` and `run` read.

The corpus file makes each smallest stream a scenario of its own (`bug-N-...`, area
`bugs`), with the expected output the SPEC model gives it, so a maintainer replays a
bug with the suite's own commands, and a fix can be held to it in a corpus of theirs.
"""

from __future__ import annotations

import json
from pathlib import Path

from scrubcheck.corpus.yamlwriter import corpus_context, corpus_yaml, scenario_entry
from scrubcheck.explain.causes import RootCause
from scrubcheck.explain.conduct import Explanation
from scrubcheck.explain.trial import Candidate, as_scenario
from scrubcheck.model import Scenario
from scrubcheck.peers import ManifestError, find_manifest
from scrubcheck.reports.bugs import bug_id, bug_report, markdown_lines, shrunk
from scrubcheck.results import RunResult

CORPUS_FILE = "bugs.yaml"


def smallest_scenario(number: int, cause: RootCause) -> Scenario:
    """A root cause's smallest stream as a corpus scenario."""
    small = cause.smallest
    name = bug_id(number, cause.to_dict())
    template = Scenario(
        id=name, area="bugs", rules=tuple(cause.rules) or ("R-FID-1",),
        description=f"scrubcheck explain: {cause.name} (smallest stream of "
                    f"{small.scenario_id})",
        deltas=small.deltas or ("",), reasoning=(), context=small.context)
    scenario = as_scenario(template, Candidate.of(small.deltas or ("",), small.context))
    return Scenario(id=name, area="bugs", rules=template.rules,
                    description=template.description, deltas=scenario.deltas,
                    reasoning=scenario.reasoning, context=corpus_context(scenario.context),
                    visible=scenario.visible, source=None, labels=("explain",))


def write_explanation(explanation: Explanation, run: RunResult, folder: Path, *,
                      summary: bool = True) -> list[Path]:
    """Write the explanation of `run` into `folder`: with `summary`, explanation.json and
    bugs.md (a run's own reports hold both already); always one report per bug in
    bugs/ and the smallest streams as bugs.yaml. The paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    spec = run.scrubber
    data = explanation.to_dict()
    version = str(run.settings.get("implementation_version", ""))
    written = []
    if summary:
        path = folder / "explanation.json"
        path.write_text(json.dumps({"scrubber": spec, "implementation_version": version,
                                    "spec_version": run.spec_version, **data},
                                   indent=1) + "\n", encoding="utf-8")
        written.append(path)
        path = folder / "bugs.md"
        path.write_text("\n".join(markdown_lines(data, spec, level="#")) + "\n",
                        encoding="utf-8")
        written.append(path)
    corpus = folder / CORPUS_FILE
    entries = {n: scenario_entry(smallest_scenario(n, c))
               for n, c in enumerate(explanation.causes, start=1) if shrunk(c.to_dict())}
    if entries:
        corpus.write_text(corpus_yaml(list(entries.values())), encoding="utf-8")
        written.append(corpus)
    reports = folder / "bugs"
    reports.mkdir(exist_ok=True)
    for stale in reports.glob("bug-*.md"):
        stale.unlink()
    entry, kind = _entry_point(spec, run.scrubber_kind)
    for number, cause in enumerate(data["root_causes"], start=1):
        path = reports / f"{bug_id(number, cause)}.md"
        own = corpus_yaml([entries[number]]) if number in entries else None
        path.write_text(bug_report(cause, number, spec, version, run.spec_version, own,
                                   entry=entry, kind=kind), encoding="utf-8")
        written.append(path)
    return written


def _entry_point(spec: str, kind: str) -> tuple[str, str]:
    """The implementation's own entry point and kind, for its maintainers: a peer's from
    its manifest; a Python scrubber's spec is its entry point already."""
    if spec.startswith("peer:"):
        try:
            manifest = find_manifest(spec.removeprefix("peer:"))
        except ManifestError:
            return "", kind
        return manifest.entry, manifest.kind
    return "", kind
