"""Write server/docfact/source/jdk_api.txt: the public top-level types of every package
of the Java SE API, read from a JDK's src.zip.

A package belongs to the API when a ``java.*`` module exports it to everyone; a type is
listed when its file declares it public. docfact reads the list to know what a wildcard
import of a JDK package (``import java.util.*;``) and java.lang bring into a file.

Usage: .venv/bin/python tools/jdk_api.py /usr/lib/jvm/<jdk>/lib/src.zip
"""

from __future__ import annotations

import re
import sys
import zipfile
from collections import defaultdict
from pathlib import Path

TARGET = Path(__file__).resolve().parents[1] / "server" / "docfact" / "source" / "jdk_api.txt"
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_EXPORT = re.compile(r"\bexports\s+([\w.]+)\s*;")  # "exports p to m;" is qualified: left out
_PUBLIC_TYPE = (
    r"^\s*public\s+(?:(?:abstract|final|sealed|non-sealed|static|strictfp)\s+)*"
    r"(?:class|interface|enum|record|@interface)\s+{name}\b"
)


def exported_packages(archive: zipfile.ZipFile) -> dict[str, str]:
    """Package -> the java.* module that exports it to everyone."""
    found = {}
    for name in archive.namelist():
        module = name.split("/")[0]
        if module.startswith("java.") and name == f"{module}/module-info.java":
            text = _COMMENT.sub("", archive.read(name).decode("utf-8", "replace"))
            found.update(dict.fromkeys(_EXPORT.findall(text), module))
    return found


def public_types(archive: zipfile.ZipFile, exported: dict[str, str]) -> dict[str, list[str]]:
    found = defaultdict(list)
    for name in archive.namelist():
        module, _, rest = name.partition("/")
        folder, _, file = rest.rpartition("/")
        package = folder.replace("/", ".")
        if not file.endswith(".java") or exported.get(package) != module or "-" in file:
            continue  # package-info.java and module-info.java declare no type
        stem = file[: -len(".java")]
        text = archive.read(name).decode("utf-8", "replace")
        if re.search(_PUBLIC_TYPE.format(name=re.escape(stem)), text, re.MULTILINE):
            found[package].append(stem)
    return found


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with zipfile.ZipFile(sys.argv[1]) as archive:
        types = public_types(archive, exported_packages(archive))
    lines = [f"{package} {' '.join(sorted(names))}" for package, names in sorted(types.items())]
    TARGET.write_text(
        f"# Made by tools/jdk_api.py from the src.zip of {_jdk_version(Path(sys.argv[1]))}\n"
        + "\n".join(lines)
        + "\n",
        encoding="utf-8",
    )
    print(f"{TARGET}: {len(lines)} packages, {sum(map(len, types.values()))} types")
    return 0


def _jdk_version(src_zip: Path) -> str:
    """ "JDK 25.0.3+9-LTS", from the ``release`` file of the JDK that holds ``src_zip``."""
    release = src_zip.resolve().parents[1] / "release"
    if release.is_file():
        found = re.search(r'^JAVA_RUNTIME_VERSION="([^"]+)"', release.read_text(), re.MULTILINE)
        if found:
            return f"JDK {found.group(1)}"
    return "a JDK"


if __name__ == "__main__":
    sys.exit(main())
