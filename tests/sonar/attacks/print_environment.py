# expect: ok
# Print the whole environment: secrets must not be in it.
import os

print(dict(os.environ))
