# expect: ok
# Reopen standard input for writing through /proc/self/fd/0: it was the run's input file
# on the host's disk (16 MiB written there). Now it is on a read-only mount.
import sys

try:
    with open("/proc/self/fd/0", "wb") as stdin_again:
        stdin_again.write(b"x" * (1 << 20))
except OSError as error:
    print(f"refused: {error}")
else:
    sys.exit("wrote to the file behind standard input")
