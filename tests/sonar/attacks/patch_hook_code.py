# expect: blocked
# Reach the guard's maker through the bootstrap frame, gut a guard class it makes and the
# maker itself, then run a shell: the installed guard is untouched by all of it.
import os
import sys

frame = sys._getframe()
while "guard_class" not in frame.f_globals:
    frame = frame.f_back
maker = frame.f_globals["guard_class"]
maker("/", (), (), 2).__call__.__code__ = (lambda self, event, args: None).__code__
maker.__code__ = (lambda *args: object).__code__
os.system("true")
