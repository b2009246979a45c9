# expect: blocked
import json, os, sys
os.system("echo pwned > %s" % json.load(sys.stdin)["canary"])
