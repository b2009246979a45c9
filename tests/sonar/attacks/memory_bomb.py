# expect: out_of_memory
blocks = []
while True:
    blocks.append(bytearray(50 << 20))
