# expect: blocked
# Remove the whole folder outside.
import json, shutil, sys
shutil.rmtree(json.load(sys.stdin)["outside"])
