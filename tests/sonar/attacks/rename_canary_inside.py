# expect: blocked
# Move a file from outside into the sandbox (deleting it outside).
import json
import os
import sys

os.rename(json.load(sys.stdin)["canary"], "stolen.txt")
