"""Rewrite the parts of README.md that tfdoctor itself produces (tests/repo/test_docs.py checks both):
the example report at the top (`tfdoctor diagnose` of tests/scenarios/rosetta_homebrew_usr_local.json,
as a pipe prints it: 80 columns) and the table of rules generated from their own docs.

    python tools/update_readme.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCENARIO = REPO / "tests" / "scenarios" / "rosetta_homebrew_usr_local.json"


def main() -> None:
    from tfdoctor.engine.registry import load_registry
    from tfdoctor.render.listing import markdown_table

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR")}
    report = subprocess.run([sys.executable, "-m", "tfdoctor", "diagnose", str(SCENARIO)],
                            capture_output=True, text=True, env=env, cwd=REPO).stdout
    head, rest = readme.split("```\n$ tfdoctor check\n", 1)
    readme = head + "```\n$ tfdoctor check\n" + report + "```\n" + rest.split("```\n", 1)[1]
    start = readme.index("<!-- rules:")
    body_start = readme.index("\n", start) + 1
    readme = readme[:body_start] + markdown_table(load_registry()) + readme[readme.index("<!-- /rules -->"):]
    (REPO / "README.md").write_text(readme, encoding="utf-8")
    print("README.md: example report and rule table rewritten")


if __name__ == "__main__":
    main()
