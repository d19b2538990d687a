"""Gateway tools: record, classify and replay OpenAI-compatible chat streams.

    capture.py     the capture model and its JSON file format (capture.schema.json)
    wire.py        OpenAI chunk / completion / error objects; the context header
    sse.py         writing SSE events; importing saved SSE text as a capture
    tap.py         raw-byte watcher under the openai client (clean end vs cut)
    recorder.py    `gateway record`: streams through the official openai client
    inline.py      what the reference scrubber removes from a stream, and where
    classify.py    the stream's reasoning format and the context a client needs
    verdicts.py    every scrubber on a capture: leaks and lost answers
    scrubbers.py   which scrubbers `gateway check` runs (reference, --scrubber, peers)
    importer.py    `gateway import`: a capture as a corpus scenario
    replay.py      the catalog of streams the server plays, by model name
    server.py      `gateway serve`: the OpenAI-compatible replay server
    samples/       one sample capture per reasoning format
"""
