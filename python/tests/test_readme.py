"""The README's Python quick start runs as written: its code is examples/python_quickstart.py,
which runs here (from the checkout's root, as the README says) and checks its results."""

import os
import re
import subprocess
import sys

from conftest import REPO


def test_the_readme_quick_start_is_the_example_and_runs():
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Python quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    example = REPO / "examples" / "python_quickstart.py"
    assert blocks == [example.read_text()]
    assert "PYTHONPATH=build/python /usr/bin/python3 examples/python_quickstart.py" in section
    run = subprocess.run([sys.executable, str(example)], cwd=REPO, env=os.environ, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    difference = float(lines[0].split()[3])
    assert difference < 1e-12 and "candidates" in lines[1]
    assert any(line.startswith("lazy: r0 = x0 * (x1 @ x2.T) ") and float(line.split()[-1]) < 1e-12 for line in lines)
    assert lines[-1] == "rows sum to 1: True True"
