# expect: blocked
# Read the editor's environment (its API keys) from /proc.
import json
import sys

print(open("/proc/%d/environ" % json.load(sys.stdin)["test_pid"], "rb").read())
