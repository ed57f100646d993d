"""serieslines: the lines the series adds to a file of the tree, for
scripts/coverage/summary.py (the coverage of the shared files' hunks)
and scripts/coverage/mutate-gen.py (the mutants in them). Imported, not run."""

import re
import subprocess


def added_lines(tree, base, rev, path):
    """The line numbers, in rev's copy of path, that git diff base rev adds."""
    diff = subprocess.run(['git', '-C', tree, 'diff', '-U0', base, rev, '--', path],
                          check=True, capture_output=True, text=True).stdout
    lines = set()
    for m in re.finditer(r'^@@ -\S+ \+(\d+)(?:,(\d+))? @@', diff, re.M):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        lines.update(range(start, start + count))
    return lines
