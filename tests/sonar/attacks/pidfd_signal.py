# expect: blocked
# pidfd_send_signal raises no audit event; the sandbox replaces it.
import json
import os
import signal
import sys

signal.pidfd_send_signal(os.pidfd_open(json.load(sys.stdin)["test_pid"]), signal.SIGUSR1)
