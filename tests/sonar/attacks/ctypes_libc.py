# expect: blocked
# Call libc's system() through ctypes.
import ctypes, json, sys
ctypes.CDLL(None).system(b"echo pwned")
