# expect: blocked
# /dev/fd is a link to /proc/self/fd, so /dev/fd/.. is /proc/<pid>, whose root is "/":
# a guard that resolves ".." as text sees /dev/root/..., the kernel opens the key.
import json
import sys

print(open("/dev/fd/../root" + json.load(sys.stdin)["ssh_key"]).read())
