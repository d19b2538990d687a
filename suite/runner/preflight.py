"""load_scrubber: a scrubber spec is loaded in scrubcheck's process only after a child survived it.

Every entry point that runs a scrubber (`run`, `show`, `matrix`, `hunt`, `fuzz`,
the pytest plugin) loads the spec once in its own process: to refuse a bad spec
with one line before anything runs, and because the workers are forked from that
process with the scrubber already imported. Loading a spec runs the module-level
code of the scrubber's module, which may hang, segfault, call `os._exit` or flood
stdout; in scrubcheck's own process any of these would take the gate down (the
plugin: pytest itself) exactly when it should report.

So the spec is first loaded in one forked child set up like a worker
(`WorkerPool`, `isolate_worker`: stdout and stderr into a bounded capture, killed
with its parent, the run's memory limit), under a wall-clock bound. If the child
hangs, dies or cannot load it, the spec is refused with an AdapterError (exit 2,
a collection error in the plugin) that says what happened and quotes what the
module printed (its first and last lines). Only then is it imported here, with
stdout and stderr pointed at the null device for that moment: what the module
prints at import was already captured in the child, and must not reach
scrubcheck's console.

The bound is the run's `--timeout`, but never less than LOAD_FLOOR_S: importing a
scrubber (a tokenizer, a framework) may take longer than judging one scenario.
Peers (`peer:`) are not tried first: their code runs in a process of their own by
design, whose start the peer machinery bounds.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

from scrubcheck.adapters import Adapter, AdapterError, load_adapter
from scrubcheck.adapters.peer import PREFIX as PEER_PREFIX
from scrubcheck.option_names import COMMAND_LINE, OptionNames
from scrubcheck.runner.pool import (
    Handler,
    Lost,
    Progress,
    Task,
    WorkerPool,
    flush_io,
    memory_note,
)

LOAD_FLOOR_S = 30.0
LABEL = "loading the scrubber"  # what the child notes it is doing (named if it is lost)
HEAD_CHARS, TAIL_CHARS = 160, 240  # how much of what the module printed the message quotes

_TRIED: set[tuple[str, str]] = set()  # (cwd, spec) loaded through a child already


@dataclass
class _Loaded:
    """The child's answer: None, or why the spec cannot be loaded."""

    refused: str | None = None
    captured_output: str | None = None  # filled in by the pool


def load_timeout(timeout_s: float) -> float:
    """Wall-clock seconds a trial load may take, for a run whose per-scenario timeout
    is `timeout_s`."""
    return max(timeout_s, LOAD_FLOOR_S)


def load_scrubber(
    spec: str, *, timeout_s: float, memory_limit: int | None = None,
    options: OptionNames = COMMAND_LINE,
) -> Adapter:
    """The adapter for `spec`, loaded here only after a child process loaded it.

    Raises AdapterError (a usage error: exit 2) when the spec is bad or loading it
    hangs past `load_timeout(timeout_s)`, crashes, exits or raises; the message
    names the spec, what happened and the end of what it printed.
    """
    tried = (os.getcwd(), spec)  # a relative path names another file elsewhere
    if spec.startswith(PEER_PREFIX) or tried in _TRIED:
        return load_adapter(spec)
    refused = _try_in_child(spec, load_timeout(timeout_s), memory_limit, options)
    if refused is not None:
        raise AdapterError(refused)
    _TRIED.add(tried)
    with _quiet_stdio():
        return load_adapter(spec)


def _try_in_child(
    spec: str, timeout_s: float, memory_limit: int | None, options: OptionNames
) -> str | None:
    """Load `spec` in a forked child: None when it loaded, else why not."""

    def make_handler() -> Handler[_Loaded]:
        def handle(task: Task, note: Progress) -> _Loaded:
            note(LABEL)
            try:
                load_adapter(spec)
            except AdapterError as exc:
                return _Loaded(str(exc))
            except BaseException as exc:  # noqa: BLE001 - SystemExit at import, say
                return _Loaded(f"{spec}: loading it raised {type(exc).__name__}: {exc}")
            return _Loaded()

        return handle

    got: list[object] = []
    with WorkerPool(1, make_handler, memory_limit=memory_limit, options=options) as pool:
        pool.run([Task(0, None, timeout_s)], lambda _, answer: got.append(answer),
                 lambda _, lost: got.append(lost))
    (answer,) = got
    if isinstance(answer, _Loaded):
        if answer.refused is None:
            return None
        limit = memory_note(memory_limit, options) \
            if memory_limit and "MemoryError" in answer.refused else ""
        return answer.refused + limit + _printed(answer.captured_output)
    if isinstance(answer, Lost):
        if answer.kind == "timeout":
            what = (f"got {answer.detail} and was killed: importing the scrubber hangs (or "
                    "takes longer than that)")
        else:
            what = f"failed: {answer.detail}: importing the scrubber ends its process"
        return (f"{spec}: a trial load in a child process {what}, so it is not loaded into "
                "scrubcheck" + _printed(answer.output))
    return f"{spec}: the trial load in a child process failed in scrubcheck itself: {answer}"


def _printed(captured: str | None) -> str:
    """What the module printed, on the same line (escapes shown as such): all of it when
    short, else its first and last lines (a crash's first lines say where it happened,
    the last ones what the process did last)."""
    if not captured:
        return ""
    counts, _, body = captured.partition("\n")
    body = body.rstrip()
    if len(body) <= HEAD_CHARS + TAIL_CHARS:
        return f"; it printed {counts}: {body!r}"
    head, tail = body[:HEAD_CHARS], body[-TAIL_CHARS:]
    if "\n" in head:  # up to the end of a line
        head = head[:head.rindex("\n") + 1]
    if "\n" in tail:  # from the start of a line
        tail = tail[tail.index("\n") + 1:]
    return f"; it printed {counts}: {head!r} … {tail!r}"


@contextmanager
def _quiet_stdio() -> Iterator[None]:
    """stdout and stderr (file descriptors 1 and 2 and the Python streams) into the null
    device while the block runs, then back as they were."""
    streams = sys.stdout, sys.stderr
    _flush(*streams)
    saved = os.dup(1), os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        with open(os.devnull, "w", encoding="utf-8") as quiet:
            os.dup2(null, 1)
            os.dup2(null, 2)
            sys.stdout = sys.stderr = quiet
            try:
                yield
            finally:
                _flush(*streams)  # into the null device: what the import wrote to them
                sys.stdout, sys.stderr = streams
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
    finally:
        for descriptor in (*saved, null):
            os.close(descriptor)


def _flush(*streams: TextIO | None) -> None:
    """Flush these streams, the interpreter's original ones (None when it has none) and
    C's stdio buffers."""
    for stream in (*streams, sys.__stdout__, sys.__stderr__):
        if stream is None:
            continue
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed or odd stream: nothing to flush
            pass
    flush_io()
