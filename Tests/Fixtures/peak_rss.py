#!/usr/bin/env python3
"""Runs a command and writes the peak resident memory of its process to a file.

    python3 peak_rss.py OUT_FILE COMMAND [ARGUMENT...]

OUT_FILE receives one line: the largest resident set size the command reached, in KiB
(getrusage's ru_maxrss for the children waited for). Standard input, output and error
are the command's own; the exit status is the command's (128 + N when signal N ended it).

Python standard library only.
"""

import resource
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: peak_rss.py OUT_FILE COMMAND [ARGUMENT...]\n")
        sys.exit(2)
    finished = subprocess.run(sys.argv[2:])
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(sys.argv[1], "w") as f:
        f.write("%d\n" % peak)
    code = finished.returncode
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
