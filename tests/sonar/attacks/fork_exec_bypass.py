# expect: blocked
# _posixsubprocess.fork_exec raises no audit event of its own; call it past subprocess.Popen
# (arguments as Python 3.11's subprocess passes them).
import json
import os
import sys

canary = json.load(sys.stdin)["canary"]
errpipe_read, errpipe_write = os.pipe()
sys.modules["_posixsubprocess"].fork_exec(
    [b"/bin/sh", b"-c", f"echo pwned > {canary}".encode()],
    [b"/bin/sh"],
    True,
    (),
    None,
    None,
    -1,
    -1,
    -1,
    -1,
    -1,
    -1,
    errpipe_read,
    errpipe_write,
    False,
    False,
    -1,
    None,
    None,
    None,
    -1,
    None,
    False,
)
