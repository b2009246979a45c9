# expect: blocked
# Overwrite a file outside the sandbox.
import json
import sys

ctx = json.load(sys.stdin)
open(ctx["canary"], "w").write("pwned")
