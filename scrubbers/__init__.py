"""Scrubbers under test: the reference implementation and deliberately broken examples."""
