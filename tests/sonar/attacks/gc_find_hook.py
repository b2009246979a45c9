# expect: blocked
# Look for the hook among all objects.
import gc

hooks = [o for o in gc.get_objects() if type(o).__name__ == "AuditGuard"]
