"""An explanation written to disk: its JSON, its Markdown, one bug report per root
cause, and the smallest streams as a corpus file that `scrubcheck show` and `run` read.

The corpus file makes each smallest stream a scenario of its own (`bug-N-...`, area
`bugs`), with the expected output the SPEC model gives it, so a maintainer replays a
bug with the suite's own commands, and a fix can be held to it in a corpus of theirs.
"""

from __future__ import annotations

import json
from pathlib import Path

from scrubcheck.corpus.yamlwriter import corpus_yaml, scenario_entry
from scrubcheck.explain.causes import RootCause
from scrubcheck.explain.conduct import Explanation
from scrubcheck.explain.render import bug_id, bug_report, markdown_lines, shrunk
from scrubcheck.explain.trial import Candidate, as_scenario
from scrubcheck.model import Scenario
from scrubcheck.results import RunResult

CORPUS_FILE = "bugs.yaml"


def smallest_scenario(number: int, cause: RootCause) -> Scenario:
    """A root cause's smallest stream as a corpus scenario."""
    small = cause.smallest
    template = Scenario(
        id=bug_id(number, cause), area="bugs", rules=tuple(cause.rules) or ("R-FID-1",),
        description=f"scrubcheck explain: {cause.name} (smallest stream of "
                    f"{small.scenario_id})",
        deltas=small.deltas or ("",), reasoning=(), context=small.context)
    scenario = as_scenario(template, Candidate.of(small.deltas or ("",), small.context))
    return Scenario(id=template.id, area="bugs", rules=template.rules,
                    description=template.description, deltas=scenario.deltas,
                    reasoning=scenario.reasoning, context=scenario.context,
                    visible=scenario.visible, source=None, labels=("explain",))


def write_explanation(explanation: Explanation, run: RunResult, folder: Path) -> list[Path]:
    """Write the explanation of `run` into `folder`; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    spec = run.scrubber
    written = []
    data = {"scrubber": spec, "implementation_version":
            run.settings.get("implementation_version", ""),
            "spec_version": run.spec_version, **explanation.to_dict()}
    path = folder / "explanation.json"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    written.append(path)
    path = folder / "bugs.md"
    path.write_text("\n".join(markdown_lines(explanation, spec)) + "\n", encoding="utf-8")
    written.append(path)
    corpus = folder / CORPUS_FILE
    entries = [scenario_entry(smallest_scenario(n, c))
               for n, c in enumerate(explanation.causes, start=1) if shrunk(c)]
    if entries:
        corpus.write_text(corpus_yaml(entries), encoding="utf-8")
        written.append(corpus)
    reports = folder / "bugs"
    reports.mkdir(exist_ok=True)
    for stale in reports.glob("bug-*.md"):
        stale.unlink()
    for number, cause in enumerate(explanation.causes, start=1):
        path = reports / f"{bug_id(number, cause)}.md"
        path.write_text(bug_report(cause, spec, str(data["implementation_version"]),
                                   run.spec_version,
                                   str(corpus) if entries and shrunk(cause) else None, number),
                        encoding="utf-8")
        written.append(path)
    return written
