"""Runs spread over machines: shards of a run as tasks of an existing distributed engine.

`dask_runner` sends each shard (`scrubcheck.corpus.shard`) to a Dask worker,
where `job` runs it with the ordinary runner in a process of its own; the
shards' reports come back and are merged (`scrubcheck.runner.merge`). Needs
the `dask` extra: `pip install 'scrubcheck[dask]'`. See docs/distributed.md.
"""
