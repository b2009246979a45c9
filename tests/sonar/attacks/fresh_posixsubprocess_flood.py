# expect: ok
# A process flood through an unaudited fork_exec: the process limit must hold (as root too,
# where the kernel ignores RLIMIT_NPROC for processes that are root outside).
import _imp
import importlib.machinery
import importlib.util
import json
import os
import sys

context = json.load(sys.stdin)
spec = importlib.util.find_spec("_posixsubprocess")
fresh = (
    _imp.create_dynamic(
        importlib.machinery.ModuleSpec("_posixsubprocess", None, origin=spec.origin)
    )
    if spec.origin not in (None, "built-in")
    else _imp.create_builtin(spec)
)
started = 0
for _ in range(300):
    errpipe_read, errpipe_write = os.pipe()
    try:
        fresh.fork_exec(
            [b"/bin/sleep", b"20", context["outside"].encode()],
            [b"/bin/sleep"],
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
    except OSError:
        break
    finally:
        os.close(errpipe_read)
        os.close(errpipe_write)
    started += 1
if started >= 64:
    raise SystemExit(f"started {started} processes: the limit did not hold")
