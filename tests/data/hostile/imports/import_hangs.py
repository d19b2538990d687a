"""A scrubber module that never finishes importing (it waits on something that never comes)."""

import time

print("connecting to the tokenizer service…", flush=True)
time.sleep(3600)


class Scrubber:  # never reached
    def feed(self, delta: str) -> str:
        return delta

    def flush(self) -> str:
        return ""
