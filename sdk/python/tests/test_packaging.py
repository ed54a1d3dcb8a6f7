"""The in-tree build backend: ``pip install ./sdk/python`` works offline."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile

import support


def load_backend():  # noqa: ANN201
    path = os.path.join(support.SDK_ROOT, "build_backend", "engine_sdk_build.py")
    spec = importlib.util.spec_from_file_location("engine_sdk_build", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class PackagingTest(unittest.TestCase):
    def test_wheel_holds_every_module_and_valid_metadata(self) -> None:
        backend = load_backend()
        self.assertEqual(backend.get_requires_for_build_wheel(), [])
        modules = sorted(f"engine_sdk/{n}" for n in os.listdir(os.path.join(support.SDK_ROOT, "engine_sdk")) if n.endswith(".py"))
        modules = sorted([*modules, "engine_sdk/py.typed"])  # PEP 561: type checkers use the package's hints
        with tempfile.TemporaryDirectory() as out:
            name = backend.build_wheel(out)
            self.assertEqual(name, "engine_sdk-0.1.0-py3-none-any.whl")
            with zipfile.ZipFile(os.path.join(out, name)) as whl:
                names = whl.namelist()
                metadata = whl.read("engine_sdk-0.1.0.dist-info/METADATA").decode()
                record = whl.read("engine_sdk-0.1.0.dist-info/RECORD").decode()
        self.assertEqual(sorted(n for n in names if n.startswith("engine_sdk/")), modules)
        self.assertIn("Name: engine-sdk\n", metadata)
        self.assertIn("Requires-Python: >=3.10\n", metadata)
        for module in modules:
            self.assertRegex(record, rf"(?m)^{module},sha256=[\w-]+,\d+$")

    def test_pip_installs_it_offline_and_it_imports(self) -> None:
        if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
            self.skipTest("pip is not available for this Python")
        with tempfile.TemporaryDirectory() as target:
            install = subprocess.run(
                [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet",
                 "--disable-pip-version-check", "--target", target, support.SDK_ROOT],
                capture_output=True, text=True,
                env={**os.environ, "PIP_NO_CACHE_DIR": "1"},
            )
            self.assertEqual(install.returncode, 0, install.stderr)
            check = subprocess.run(
                [sys.executable, "-I", "-c",
                 f"import sys; sys.path.insert(0, {target!r}); import engine_sdk; print(engine_sdk.__file__)"],
                capture_output=True, text=True, cwd=target,
            )
            self.assertEqual(check.returncode, 0, check.stderr)
            self.assertTrue(check.stdout.startswith(target), check.stdout)


if __name__ == "__main__":
    unittest.main()
