# expect: blocked
# Send a signal to the process that started the sandbox.
import json, os, signal, sys
os.kill(json.load(sys.stdin)["test_pid"], signal.SIGUSR1)
