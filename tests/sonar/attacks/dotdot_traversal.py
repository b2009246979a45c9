# expect: blocked
# Climb out of the working folder with .. components.
import json, os, sys
canary = json.load(sys.stdin)["canary"]
open(os.getcwd() + "/../../../../../../.." + canary, "w").write("pwned")
