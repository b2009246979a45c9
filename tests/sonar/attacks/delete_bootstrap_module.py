# expect: blocked
import os
import sys

for name in list(sys.modules):
    if name in ("__main__", "jail_child", "docfact.sonar.jail_child"):
        del sys.modules[name]
os.system("true")
