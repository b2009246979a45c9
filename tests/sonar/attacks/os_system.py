# expect: blocked
import json
import os
import sys

os.system("echo pwned > %s" % json.load(sys.stdin)["canary"])
