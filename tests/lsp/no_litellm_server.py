"""docfact's language server in an environment where litellm is not installed: the
import system is told litellm is absent (as Python records a failed import), so the
server meets exactly what a user without the model extra meets."""

import sys

sys.modules["litellm"] = None  # type: ignore[assignment]  # import litellm -> ImportError

from docfact.lsp.server import serve  # noqa: E402

if __name__ == "__main__":
    sys.exit(serve())
