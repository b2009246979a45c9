# expect: blocked
# Connect to a listener on the loopback interface.
import json
import socket
import sys

socket.create_connection(("127.0.0.1", json.load(sys.stdin)["port"]), timeout=2).sendall(b"x")
