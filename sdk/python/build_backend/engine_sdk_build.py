"""A PEP 517/660 build backend with no dependencies, so that
``pip install ./sdk/python`` (and ``pip install -e``) work offline, with or
without build isolation: there is nothing to download to build this package.

It packs ``engine_sdk/*.py`` into a pure-Python wheel; the project's name,
version, summary and ``requires-python`` come from ``pyproject.toml``.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "engine_sdk"


def _project() -> dict[str, str]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if section is None:
        raise RuntimeError('Cannot build: "pyproject.toml" has no [project] table')
    fields = dict(re.findall(r'^([\w-]+)\s*=\s*"([^"]*)"\s*$', section.group(1), re.M))
    for key in ("name", "version"):
        if key not in fields:
            raise RuntimeError(f'Cannot build: "pyproject.toml" [project] has no "{key}"')
    return fields


def _dist_name(project: dict[str, str]) -> str:
    return f"{re.sub(r'[-_.]+', '_', project['name'])}-{project['version']}"


def _metadata(project: dict[str, str]) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    readme = ROOT / "README.md"
    if readme.exists():
        lines += ["Description-Content-Type: text/markdown", "", readme.read_text(encoding="utf-8")]
    return "\n".join(lines) + "\n"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory: str, files: dict[str, bytes]) -> str:
    project = _project()
    dist = _dist_name(project)
    info = f"{dist}.dist-info"
    files = dict(files)
    files[f"{info}/METADATA"] = _metadata(project).encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: engine_sdk_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [_record_line(name, data) for name, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    filename = f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
        for name, data in files.items():
            whl.writestr(name, data)
    return filename


def _sources() -> dict[str, bytes]:
    # py.typed (PEP 561): type checkers read the annotations of the installed package.
    files = [*sorted((ROOT / PACKAGE).glob("*.py")), ROOT / PACKAGE / "py.typed"]
    return {f"{PACKAGE}/{p.name}": p.read_bytes() for p in files}


def get_requires_for_build_wheel(config_settings: Any = None) -> list[str]:
    return []


def get_requires_for_build_editable(config_settings: Any = None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings: Any = None) -> list[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Any = None, metadata_directory: Any = None) -> str:
    return _write_wheel(wheel_directory, _sources())


def build_editable(wheel_directory: str, config_settings: Any = None, metadata_directory: Any = None) -> str:
    # A .pth file puts this directory on sys.path: edits take effect without reinstalling.
    return _write_wheel(wheel_directory, {f"_{PACKAGE}_editable.pth": f"{ROOT}\n".encode()})


def build_sdist(sdist_directory: str, config_settings: Any = None) -> str:
    dist = _dist_name(_project())
    filename = f"{dist}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tar:
        for rel in ["pyproject.toml", "README.md", "build_backend/engine_sdk_build.py", *_sources()]:
            if (ROOT / rel).exists():
                tar.add(ROOT / rel, arcname=f"{dist}/{rel}")
    return filename
