# expect: blocked
# Delete a file outside the sandbox.
import json
import os
import sys

os.remove(json.load(sys.stdin)["canary"])
