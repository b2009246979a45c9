# expect: blocked
# Read a file in the shared temporary folder that the test did not make readable.
import json
import sys

print(open(json.load(sys.stdin)["unlisted"]).read())
