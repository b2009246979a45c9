# expect: blocked
# Remove the whole folder outside.
import json
import shutil
import sys

shutil.rmtree(json.load(sys.stdin)["outside"])
