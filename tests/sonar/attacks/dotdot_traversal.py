# expect: blocked
# Climb out of the working folder with .. components.
import json
import os
import sys

canary = json.load(sys.stdin)["canary"]
open(os.getcwd() + "/../../../../../../.." + canary, "w").write("pwned")
