# expect: timeout
# Ignore the CPU limit's first signal; the hard limit's SIGKILL follows.
import signal

signal.signal(signal.SIGXCPU, signal.SIG_IGN)
while True:
    pass
