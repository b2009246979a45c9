# expect: blocked
# Append to a file outside, through pathlib.
import json, pathlib, sys
ctx = json.load(sys.stdin)
with pathlib.Path(ctx["canary"]).open("a") as handle:
    handle.write("pwned")
