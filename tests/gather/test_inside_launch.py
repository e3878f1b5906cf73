"""How the programs of tfdoctor/inside/ start in the diagnosed interpreter: from a private copy
whose root, not the script's own folder, is on the path, so none of our modules' short names
(`core`, `ops`, `load`, ...) can stand in for a module of the user's."""

from __future__ import annotations

import json
import os
from pathlib import Path

from gather.test_collector import make_venv

from tfdoctor.gather.runtime import gather_runtime
from tfdoctor.gather.static import INSIDE

RECORD_PATH = (
    "import json, os, sys\n"
    "with open(os.environ['PATH_RECORD'], 'w') as out:\n"
    "    json.dump(sys.path, out)\n"
    "raise ImportError('a stand-in tensorflow')\n"
)


def test_the_runtime_childs_path_holds_the_copys_root_and_no_folder_of_ours(tmp_path, monkeypatch):
    """A stand-in `tensorflow` records sys.path as the runtime child imports it."""
    python, site = make_venv(tmp_path / "env")
    (site / "tensorflow").mkdir()
    (site / "tensorflow" / "__init__.py").write_text(RECORD_PATH)
    record = tmp_path / "path.json"
    monkeypatch.setenv("PATH_RECORD", str(record))
    facts = gather_runtime(str(python), timeout=30)
    assert facts.outcome == "import-error", facts
    path = json.loads(record.read_text())
    ours = {p.name for p in INSIDE.rglob("*.py")} - {"__init__.py", "__main__.py"}
    shadowing = [p for p in path if Path(p or ".").is_dir() and ours & {f.name for f in Path(p or ".").iterdir()}]
    assert shadowing == []
    root = path[0]
    assert Path(root).name.startswith("tfdoctor-scripts-")  # the private copy's root
    assert [p for p in path if p.startswith(root + os.sep)] == []  # and none of its folders
