# expect: blocked
# Close every descriptor but the standard ones, so that no report can be written.
import json
import os
import sys

canary = json.load(sys.stdin)["canary"]
os.closerange(3, 4096)
open(canary, "w").write("pwned")
