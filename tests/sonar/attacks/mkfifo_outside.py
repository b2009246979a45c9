# expect: blocked
# os.mkfifo raises no audit event; the sandbox replaces it.
import json
import os
import sys

os.mkfifo(os.path.join(json.load(sys.stdin)["outside"], "fifo"))
