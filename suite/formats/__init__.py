"""The format registry: one data file per model family's reasoning format.

A format names its delimiters by *kind* (SPEC section 2b): pairs, special-token
pairs, tool sections, markers, answer wrappers and a channel grammar. What each kind
does is defined once, in SPEC and in the code that reads vocabularies; a format adds
no code of its own. The shipped files live in the repository's `formats/` folder (the
`scrubcheck.formatfiles` package data); `--formats FILE` adds a user's file.
"""

from scrubcheck.formats.model import (
    PAIR_KINDS,
    ChannelGrammar,
    Delimiter,
    Format,
    Source,
    Template,
)
from scrubcheck.formats.reading import FormatError, read_format_file
from scrubcheck.formats.registry import (
    FormatsUnavailable,
    register_format_files,
    registered_formats,
    shipped_format_dir,
)

__all__ = [
    "PAIR_KINDS",
    "ChannelGrammar",
    "Delimiter",
    "Format",
    "FormatError",
    "FormatsUnavailable",
    "Source",
    "Template",
    "read_format_file",
    "register_format_files",
    "registered_formats",
    "shipped_format_dir",
]
