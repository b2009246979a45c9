# expect: blocked
# Plant a symlink inside that points outside, then write through it.
import json
import os
import sys

ctx = json.load(sys.stdin)
os.symlink(ctx["outside"], "door")
open("door/planted.txt", "w").write("pwned")
