# expect: blocked
# Run a shell that writes outside.
import json
import subprocess
import sys

canary = json.load(sys.stdin)["canary"]
subprocess.run(["/bin/sh", "-c", f"echo pwned > {canary}"])
