# expect: blocked
# /dev/fd/../.. is /proc: the environment (API keys) of the process that started the run.
import json
import sys

print(open("/dev/fd/../../%d/environ" % json.load(sys.stdin)["test_pid"], "rb").read())
