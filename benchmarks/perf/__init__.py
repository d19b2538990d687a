"""The pieces of benchmarks/performance.py, one job each.

streams     realistic answer streams, built from a seed (and lazily, for 100 MB)
impls       the implementations compared: reference, passthrough, regex floor, hermes, peers
throughput  characters per second against delta size, implementations interleaved
scaling     time against stream length (1 KB to 8 MB), per delta size
harness     a full corpus run against the time spent inside the scrubber
memory      peak traced memory while scrubbing a 100 MB stream
plots       the two PNGs
report      the console tables and reports/performance.md
"""
