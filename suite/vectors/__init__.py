"""Language-neutral vectors: the corpus, its chunkings and their expected results as data.

`scrubcheck export` writes them (docs/vectors.md is the consumer guide): a
scrubber in any language is judged on the checks a consumer can decide from the
data (`vectors.checks.DATA_CHECKS`) without running Python.
"""

from scrubcheck.vectors.encode import VectorError, encode_scenario
from scrubcheck.vectors.vector_set import (
    MANIFEST,
    VECTORS,
    VectorSet,
    build_vector_set,
    validate_set,
    write_vector_set,
)

__all__ = ["MANIFEST", "VECTORS", "VectorError", "VectorSet", "build_vector_set",
           "encode_scenario", "validate_set", "write_vector_set"]
