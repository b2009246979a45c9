# expect: blocked
# Append to a file outside, through pathlib.
import json
import pathlib
import sys

ctx = json.load(sys.stdin)
with pathlib.Path(ctx["canary"]).open("a") as handle:
    handle.write("pwned")
