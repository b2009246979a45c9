# expect: blocked
# Open the work folder as a descriptor (allowed), then climb out of it with '..'
# relative to that descriptor, from a working directory deeper down.
import json
import os
import sys

outside = json.load(sys.stdin)["outside"]
os.makedirs("deep/er")
fd = os.open(".", os.O_RDONLY)
os.chdir("deep/er")
os.remove("../../../outside/canary.txt", dir_fd=fd)
