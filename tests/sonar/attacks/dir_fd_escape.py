# expect: blocked
# A relative os.open against a directory descriptor outside (the event does not show it).
import json
import os
import sys

fd = os.open(json.load(sys.stdin)["outside"], os.O_RDONLY)
os.open("planted.txt", os.O_WRONLY | os.O_CREAT, dir_fd=fd)
