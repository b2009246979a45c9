import os
import sys

# `python -m docfact` puts the working folder first on the import path, and the editor and
# many users start docfact inside the repository it checks: that repository's argparse.py
# (or any module docfact imports from here on) would run as the user, outside the jail.
# docfact's own modules are found through its package, never through this entry.
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from .cli import main  # (after the import path is safe)

sys.exit(main())
