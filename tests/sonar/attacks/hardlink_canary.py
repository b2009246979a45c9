# expect: blocked
# Hard-link the file outside into the sandbox, then write through the link.
import json
import os
import sys

os.link(json.load(sys.stdin)["canary"], "link.txt")
open("link.txt", "w").write("pwned")
