"""A scrubber module that never finishes importing (it waits on something that never comes).

The spec names `Scrubber`, which it never gets as far as defining.
"""

import time

print("connecting to the tokenizer service…", flush=True)
time.sleep(3600)
