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
    upstream.py    the inline and native shapes a scenario is played in, by name
    route.py       route templates: how an audit request names its scenario
    compare.py     what the upstream sent against what a client received: verdicts
    audit.py       `gateway audit`: the corpus through a gateway, and the result
    audit_report.py  the audit's Markdown, HTML, JSON (audit.schema.json), JUnit
    samples/       one sample capture per reasoning format
    products/      the real gateway products (LiteLLM proxy, Portkey): manifests,
                   their environments in the user cache, starting and stopping them
"""
