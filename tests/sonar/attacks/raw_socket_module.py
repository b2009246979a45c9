# expect: blocked
# Use the C module directly.
import _socket
import json
import sys

port = json.load(sys.stdin)["port"]
s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
s.connect(("127.0.0.1", port))
