# expect: out_of_memory
# An 8 GiB anonymous map, over the address-space limit: out of memory, not a crash.
import mmap

mmap.mmap(-1, 8 << 30)
