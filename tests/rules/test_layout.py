"""The rules package stays free of OpenCV, Qt and the vision/gui packages."""

from __future__ import annotations

import subprocess
import sys


def test_rules_never_import_opencv_qt_vision_or_gui():
    code = (
        "import sys, rules.position, rules.geometry, common.dice, rules.wiener.analysis, rules.wiener.resolve,"
        " rules.wiener.pairs, rules.board, rules.marengo.engine, rules.marengo.analysis, rules.marengo.commands,"
        " rules.marengo.hidden, rules.wiener.adapter, rules.dbx.adapter, rules.marengo.adapter, rules.wiener.commands,"
        " rules.dbx.analysis, rules.dbx.resolve, rules.dbx.commands, rules.dbx.lists;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('cv2', 'PySide6', 'vision', 'gui')];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
