# expect: blocked
import sys

sys.addaudithook(lambda event, args: None)
