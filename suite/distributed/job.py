"""One shard of a run as a self-contained job: what a Dask task hands to a fresh process.

    python -m scrubcheck.distributed.job JOB.json REPORT.json     # run the shard
    python -m scrubcheck.distributed.job --probe ASK.json ANSWER.json   # can this machine?

A `ShardJob` names everything a machine needs to reproduce its part of the run
without the driver's memory: the scrubber spec, the run settings, the selection
filters (corpus paths, areas, rules, features, ids) and the shard. The worker
loads the corpus itself and selects the same scenarios; the corpus digest in the
report it sends back proves it judged the same ones as the driver (and as the
other shards, which `merge_shards` checks again).

Exit status of the job process: 0 with the report written (the scrubber's
failures are the report's content), 2 when the scrubber cannot be loaded or the
corpus is not there (the message on stderr), anything else a harness failure.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where used: a worker pays for what the job needs
    from scrubcheck.model import Scenario
    from scrubcheck.runner import RunSettings

EXIT_UNUSABLE = 2


@dataclass(frozen=True)
class Selection:
    """The scenario filters of `run`/`matrix`, replayed on the worker."""

    corpus_paths: tuple[str, ...] = ()
    areas: tuple[str, ...] | None = None
    rules: tuple[str, ...] | None = None
    features: tuple[str, ...] | None = None
    ids: tuple[str, ...] | None = None

    @classmethod
    def of(cls, corpus: Iterable[str | Path] | None = None,
           areas: Iterable[str] | None = None, rules: Iterable[str] | None = None,
           features: Iterable[str] | None = None, ids: Iterable[str] | None = None,
           ) -> Selection:
        """From a command's filters; corpus paths made absolute (a worker's working
        directory is not the driver's; it must see the same paths)."""
        def tup(values: Iterable[str] | None) -> tuple[str, ...] | None:
            return tuple(values) if values is not None else None

        return cls(tuple(str(Path(p).resolve()) for p in corpus or ()), tup(areas), tup(rules),
                   tup(features), tup(ids))

    def load(self) -> tuple[list[Scenario], list[str]]:
        """(the selected scenarios, the corpus errors as text)."""
        from scrubcheck.corpus import load_corpus, select

        corpus = load_corpus([Path(p) for p in self.corpus_paths] or None)
        chosen = select(corpus.scenarios, areas=self.areas, rules=self.rules,
                        features=self.features, ids=self.ids)
        return chosen, [str(e) for e in corpus.errors]


@dataclass(frozen=True)
class ShardJob:
    spec: str
    settings: dict  # RunSettings as `settings_to_dict` wrote it
    selection: Selection = field(default_factory=Selection)
    shard: str | None = None  # "K/N"
    #: the driver's working directory: the job runs there when the worker has it (the same
    #: checkout or image path), so corpus file names in the reports read as in a local run
    workdir: str | None = None
    #: a matrix row: run as the matrix runs rows (`vectors.native.run_row`: natively where
    #: the peer's manifest offers it), not as `scrubcheck run` does (over the protocol)
    matrix_row: bool = False

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ShardJob:
        data = json.loads(text)
        selection = {k: tuple(v) if isinstance(v, list) else v
                     for k, v in data.pop("selection").items()}
        return cls(selection=Selection(**selection), **data)


def settings_to_dict(settings: RunSettings) -> dict[str, Any]:
    """RunSettings as plain JSON; unlike `to_dict`, `jobs` stays as given (None: all the
    cores of the machine that runs the shard, not of the driver)."""
    return asdict(settings)


def settings_from_dict(data: Mapping[str, Any]) -> RunSettings:
    from scrubcheck.chunking import Caps
    from scrubcheck.runner import RunSettings

    data = dict(data)
    data["caps"] = Caps(**data["caps"])
    data["corpus_paths"] = tuple(data.get("corpus_paths") or ())
    return RunSettings(**data)


def run_job(job: ShardJob, report_path: Path) -> int:
    """Run the job's shard here and write its report.json; the exit status (see above)."""
    from scrubcheck.adapters import AdapterError
    from scrubcheck.corpus.shard import Shard
    from scrubcheck.reports.json_report import write_json
    from scrubcheck.runner.shard import run_selection
    from scrubcheck.vectors.native import run_row

    try:
        scenarios, errors = job.selection.load()
    except FileNotFoundError as exc:
        print(f"corpus: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    shard = Shard.parse(job.shard) if job.shard else None
    try:
        run = partial(run_row, say=lambda line: print(line, file=sys.stderr)) \
            if job.matrix_row else run_selection
        result = run(job.spec, scenarios, settings_from_dict(job.settings), shard=shard,
                     corpus_errors=errors)
    except AdapterError as exc:
        print(f"cannot load scrubber {job.spec}: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    write_json(result, report_path)
    return 0


def probe(specs: list[str], selection: Selection) -> dict:
    """What a worker machine can do: its versions, the corpus digest of the selection, and
    for each scrubber spec why it cannot be loaded here (None when it can)."""
    from scrubcheck import __version__
    from scrubcheck.adapters import AdapterError, load_adapter
    from scrubcheck.corpus.fingerprint import corpus_digest
    from scrubcheck.spec import SPEC_VERSION

    answer: dict = {"scrubcheck": __version__, "spec": SPEC_VERSION, "python": sys.version,
                    "problems": {}}
    try:
        answer["corpus_digest"] = corpus_digest(selection.load()[0])
    except FileNotFoundError as exc:
        answer["corpus_digest"] = None
        answer["corpus_problem"] = str(exc)
    for spec in specs:
        try:
            adapter = load_adapter(spec)
        except AdapterError as exc:
            answer["problems"][spec] = str(exc)
            continue
        close = getattr(adapter, "close", None)
        if close is not None:
            close()  # a peer started for its hello: stopped again
        answer["problems"][spec] = None
    return answer


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--probe"]:
        data = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
        selection = {k: tuple(v) if isinstance(v, list) else v
                     for k, v in data["selection"].items()}
        answer = probe(data["specs"], Selection(**selection))
        Path(argv[2]).write_text(json.dumps(answer), encoding="utf-8")
        return 0
    job = ShardJob.from_json(Path(argv[0]).read_text(encoding="utf-8"))
    return run_job(job, Path(argv[1]))


if __name__ == "__main__":
    sys.exit(main())
