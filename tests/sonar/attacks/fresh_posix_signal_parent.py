# expect: blocked
# A fresh copy of posix still audits kill (the event is raised in C), and the parent is in
# another pid namespace besides.
import _imp
import importlib.machinery
import json
import signal
import sys

spec = importlib.machinery.ModuleSpec("posix", importlib.machinery.BuiltinImporter)
_imp.create_builtin(spec).kill(json.load(sys.stdin)["test_pid"], signal.SIGUSR1)
