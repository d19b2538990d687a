"""Generators for property-based testing and fuzzing of reasoning scrubbers.

    from scrubcheck.generate import strategies     # public Hypothesis strategies
    from scrubcheck.generate import build_stream, render, Profile, canary

A stream is built from known parts (`model`), so its expected visible output
follows from the structure (SPEC, whitespace exact) and its reasoning is made of
canaries that no answer can contain: any canary in an output is a proven leak.
"""

from scrubcheck.generate.canary import canary, canary_run, find_canaries
from scrubcheck.generate.chooser import BytesChooser, Chooser, DrawChooser, ListChooser
from scrubcheck.generate.partition import choose_partition
from scrubcheck.generate.rules import shape_rules
from scrubcheck.generate.shapes import (
    Profile,
    build_answer_model,
    build_model,
    build_reasoning,
    build_stream,
    choose_context,
)
from scrubcheck.generate.soup import choose_soup
from scrubcheck.generate.stream_model import RenderedStream, StreamModel, render

__all__ = [
    "BytesChooser",
    "Chooser",
    "DrawChooser",
    "ListChooser",
    "Profile",
    "RenderedStream",
    "StreamModel",
    "build_answer_model",
    "build_model",
    "build_reasoning",
    "build_stream",
    "canary",
    "canary_run",
    "choose_context",
    "choose_partition",
    "choose_soup",
    "find_canaries",
    "render",
    "shape_rules",
]
