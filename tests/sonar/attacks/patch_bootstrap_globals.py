# expect: blocked
# Empty the bootstrap module's tables through the frame stack, then run a shell.
import os
import sys

frame = sys._getframe()
while frame is not None:
    for name in ("REFUSED_ALWAYS", "WRITES", "READS", "CHEAP"):
        if name in frame.f_globals:
            frame.f_globals[name] = frozenset()
    frame = frame.f_back
os.system("true")
