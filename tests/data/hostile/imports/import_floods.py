"""A scrubber module whose import prints without end, clearing the screen as it goes.

The spec names `Scrubber`, which it never gets as far as defining.
"""

import sys

while True:
    sys.stdout.write("\x1b[2J\x1b[Himport noise on stdout\n")
    sys.stderr.write("import noise on stderr\n")
