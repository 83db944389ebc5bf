"""The layer contracts (pyproject.toml [tool.importlinter], run by `make lint`) can fail.

`lint-imports` runs with the project's own contracts over a tiny stand-in tree of the six packages in a temporary
folder: the clean tree keeps every contract, and one forbidden import per contract breaks exactly that contract. So
a contract that stopped matching anything (a renamed package, a typo, a missing `include_external_packages`) cannot
pass silently.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("importlinter")

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
IMPORTLINTER = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
CONTRACTS = [c["name"] for c in IMPORTLINTER["contracts"]]

# What each layer may do: each package imports the ones below it, Qt in gui, OpenCV in vision and the wiring.
CLEAN = {
    "common/errors.py": "",
    "calibration/layout.py": "import cv2\n\nfrom common import errors\n",
    "vision/markers.py": "import cv2\n\nfrom calibration import layout\n",
    "rules/board.py": "from common import errors\n",
    "rules/position.py": "from rules import board\n",
    "gui/views.py": "from PySide6 import QtCore\n\nfrom rules import board\nfrom vision import markers\n",
    "fieldglass/cli.py": "import cv2\n\nfrom gui import views\nfrom rules import board\n",
}

# One forbidden import per contract: (the contract's name, the offending module, its source, the import reported)
BROKEN = [
    ("Layers import downward only", "calibration/bad.py", "def later():\n    from vision import markers\n",
     "calibration.bad -> vision.markers"),
    ("The rules engines import only common", "rules/bad.py", "import calibration\n", "rules.bad -> calibration"),
    ("Only gui imports Qt", "fieldglass/bad.py", "from PySide6 import QtGui\n", "fieldglass.bad -> PySide6"),
    ("The bottom layer and the rules engines never import OpenCV", "rules/bad.py", "import cv2\n", "rules.bad -> cv2"),
    ("gui leaves OpenCV to calibration and vision", "gui/bad.py", "import cv2\n", "gui.bad -> cv2"),
    ("No import cycles between the modules of a package", "rules/board.py",
     "from common import errors\n\n\ndef later():\n    from rules import position\n", "No cycles are allowed in rules"),
]


def lint(folder: Path, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """lint-imports with the project's contracts (its pyproject.toml copied) over the stand-in packages written to
    `folder`, its cwd: they and not the real ones are analysed."""
    shutil.copy(PYPROJECT, folder / "pyproject.toml")
    for pkg in IMPORTLINTER["root_packages"]:
        (folder / pkg).mkdir(exist_ok=True)
        (folder / pkg / "__init__.py").write_text("")
    for name, text in {**CLEAN, **(extra or {})}.items():
        (folder / name).write_text(text)
    cmd = [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()",
           "--no-cache"]
    return subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=120)


def test_every_contract_has_a_breaking_case():
    assert sorted(name for name, *_ in BROKEN) == sorted(CONTRACTS)


def test_the_clean_stand_in_keeps_every_contract(tmp_path):
    run = lint(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in run.stdout


@pytest.mark.parametrize(("contract", "module", "source", "reported"), BROKEN, ids=[b[1] for b in BROKEN])
def test_a_forbidden_import_breaks_its_contract(tmp_path, contract, module, source, reported):
    run = lint(tmp_path, {module: source})
    assert run.returncode != 0, run.stdout + run.stderr
    assert f"{contract} BROKEN" in run.stdout
    assert f"Contracts: {len(CONTRACTS) - 1} kept, 1 broken." in run.stdout
    assert reported in run.stdout
