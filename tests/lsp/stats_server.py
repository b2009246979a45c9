"""docfact's language server plus one test-only request, ``docfact/_testStats``, that
reports the bookkeeping the memory tests watch (pygls keeps a future per message)."""

import asyncio
import sys

from docfact.lsp.server import serve, server


@server.feature("docfact/_testStats")
def _test_stats(ls, params):
    return {
        "requestFutures": len(ls.protocol._request_futures),
        "pendingJobs": ls.scheduler.pending(),
        "tasks": len(asyncio.all_tasks()),
    }


if __name__ == "__main__":
    sys.exit(serve())
