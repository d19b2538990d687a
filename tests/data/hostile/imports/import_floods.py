"""A scrubber module whose import prints without end, clearing the screen as it goes."""

import sys

while True:
    sys.stdout.write("\x1b[2J\x1b[Himport noise on stdout\n")
    sys.stderr.write("import noise on stderr\n")


class Scrubber:  # never reached
    def feed(self, delta: str) -> str:
        return delta

    def flush(self) -> str:
        return ""
