# expect: blocked
# Send a signal to the process that started the sandbox.
import json
import os
import signal
import sys

os.kill(json.load(sys.stdin)["test_pid"], signal.SIGUSR1)
