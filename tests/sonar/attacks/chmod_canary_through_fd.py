# expect: blocked
# Open the file outside for reading (the test lets it be read), then chmod it through the fd.
import json
import os
import sys

fd = os.open(json.load(sys.stdin)["canary"], os.O_RDONLY)
os.chmod(fd, 0o777)
