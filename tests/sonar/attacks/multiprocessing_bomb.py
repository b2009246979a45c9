# expect: blocked
import multiprocessing
import time

if __name__ == "__main__":
    for _ in range(50):
        multiprocessing.Process(target=time.sleep, args=(60,)).start()
