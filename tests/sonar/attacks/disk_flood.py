# expect: crashed
# Fill the disk with many files, each under the file-size limit: the work folder is a
# tmpfs of 64 MiB, so the writes fail there and nothing reaches the real disk.
for number in range(100):
    with open(f"chunk{number}", "wb") as handle:
        handle.write(b"x" * (8 << 20))
