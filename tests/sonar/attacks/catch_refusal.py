# expect: blocked
# Catch the refusal and carry on as if nothing happened.
import os

try:
    os.system("true")
except BaseException:
    pass
print("survived")
