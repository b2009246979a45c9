# expect: blocked
# An sqlite URI can name any file; a relative-looking one must not slip through.
import json
import sqlite3
import sys

outside = json.load(sys.stdin)["outside"]
sqlite3.connect(f"file:{outside}/planted.db?mode=rwc", uri=True).execute("create table t(x)")
