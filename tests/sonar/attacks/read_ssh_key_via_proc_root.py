# expect: blocked
# Read the key through /proc/self/root, a path that does not start with the home.
import json
import sys

print(open("/proc/self/root" + json.load(sys.stdin)["ssh_key"]).read())
