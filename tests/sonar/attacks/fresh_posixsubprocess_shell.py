# expect: ok
# A second copy of _posixsubprocess, loaded from its shared library, has the real fork_exec
# (no audit event, never neutralised): a shell that tries every way out. Inside the jail the
# canary is read-only, the test process is not visible, there is no network, and the
# shell's children die with the run.
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
script = (
    f"echo pwned > {context['canary']}; echo pwned > {context['outside']}/new; "
    f"kill -USR1 {context['test_pid']}; "
    f"(exec 3<>/dev/tcp/127.0.0.1/{context['port']}) 2>/dev/null; "
    f"setsid sleep 30 &"
)
errpipe_read, errpipe_write = os.pipe()
pid = fresh.fork_exec(
    [b"/bin/bash", b"-c", script.encode(), context["outside"].encode()],
    [b"/bin/bash"],
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
os.waitpid(pid, 0)
