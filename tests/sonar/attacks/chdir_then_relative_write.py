# expect: blocked
# Leave the working folder, then write with a relative path.
import json
import os
import sys

canary = json.load(sys.stdin)["canary"]
os.chdir("/")
open(canary.lstrip("/"), "w").write("pwned")
