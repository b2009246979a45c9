# expect: blocked
# Read the private key in the user's home.
import json
import sys

print(open(json.load(sys.stdin)["ssh_key"]).read())
