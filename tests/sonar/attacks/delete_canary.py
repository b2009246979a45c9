# expect: blocked
# Delete a file outside the sandbox.
import json, os, sys
os.remove(json.load(sys.stdin)["canary"])
