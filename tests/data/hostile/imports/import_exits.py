"""A scrubber module whose import ends the process without unwinding (`os._exit` in a library).

The spec names `Scrubber`, which it never gets as far as defining.
"""

import os

os._exit(3)
