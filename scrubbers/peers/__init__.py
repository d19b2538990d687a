"""Real scrubbers as peers: one folder per peer (peer.toml + adapter program).

The adapter programs run inside each peer's own environment, never in the
harness; peerloop.py / peerloop.mjs are the protocol loops they load by path.
"""
