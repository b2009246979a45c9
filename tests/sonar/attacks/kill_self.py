# expect: crashed
import os, signal
os.kill(os.getpid(), signal.SIGSEGV)
