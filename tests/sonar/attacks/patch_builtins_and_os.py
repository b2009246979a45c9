# expect: blocked
# Replace the built-ins and os functions a naive hook would call at event time.
import builtins
import json
import os
import sys

canary = json.load(sys.stdin)["canary"]
cwd = os.getcwd()
os.getcwd = lambda: cwd
os.path.abspath = lambda p: cwd + "/x"
builtins.isinstance = lambda *a: False
builtins.len = lambda *a: 0
open(canary, "w").write("pwned")
