"""The tree stays clean under the project's ruff rules (pyproject.toml)."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_ruff_finds_nothing():
    result = subprocess.run(
        [sys.executable, '-m', 'ruff', 'check', '--output-format', 'concise',
         'nova_clone', 'tests'], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
