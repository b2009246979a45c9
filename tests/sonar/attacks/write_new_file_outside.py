# expect: blocked
# Create a new file next to the canary, outside the sandbox.
import json
import os
import sys

ctx = json.load(sys.stdin)
open(os.path.join(ctx["outside"], "planted.txt"), "w").write("pwned")
