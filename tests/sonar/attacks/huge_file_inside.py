# expect: crashed
# Past the file-size limit, even inside the sandbox.
with open("big.bin", "wb") as handle:
    for _ in range(64):
        handle.write(b"x" * (1 << 20))
