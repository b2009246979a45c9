# expect: blocked
# Call libc's system() through ctypes.
import ctypes

ctypes.CDLL(None).system(b"echo pwned")
