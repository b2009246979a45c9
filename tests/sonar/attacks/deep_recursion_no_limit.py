# expect: crashed
# Lift the recursion limit and recurse through C (map), so that the C stack overflows.
import sys

sys.setrecursionlimit(10**8)


def down(n):
    return list(map(down, [n + 1]))


down(0)
