"""docfact's language server plus two test-only requests: ``docfact/_testStats`` reports
the bookkeeping the memory tests watch (pygls keeps a future per message),
``docfact/_testSettings`` the settings a file is scored with (the interpreter SONAR runs
the project's functions with)."""

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


@server.feature("docfact/_testSettings")
def _test_settings(ls, params):
    settings = ls.state.settings_for(ls.path_of(params.uri))
    return {"sonarPython": settings.sonar.python}


if __name__ == "__main__":
    sys.exit(serve())
