"""scrubcheck: conformance suite and fuzzing harness for LLM reasoning scrubbers."""

__version__ = "0.1.0"
