# expect: blocked
import os

while True:
    os.fork()
