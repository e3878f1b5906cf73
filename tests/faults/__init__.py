"""Fault injection for the runtime child: throwaway venvs whose `tensorflow` is a small fake that
crashes, hangs, floods stderr or raises the real error texts (see tests/README.md for the table).

Each fake is a file in fake_tensorflow/ that becomes `site-packages/tensorflow/__init__.py` of a
new `python -m venv --without-pip` environment (fast, no TensorFlow needed), next to a
`tensorflow-<version>.dist-info` so the static checks see an installed TensorFlow. The fake first
appends its pid to $TFDOCTOR_FAULT_PIDFILE, so a test can check no process was left behind.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

FAKES = Path(__file__).resolve().parent / "fake_tensorflow"
PIDFILE_VAR = "TFDOCTOR_FAULT_PIDFILE"

_PREAMBLE = '''\
import os as _os
_pidfile = _os.environ.get("TFDOCTOR_FAULT_PIDFILE")
if _pidfile:
    with open(_pidfile, "a") as _handle:
        _handle.write("%d\\n" % _os.getpid())
del _os, _pidfile
'''

TF_215_REQUIRES = (
    "numpy<2.0.0,>=1.23.5",
    "protobuf!=4.21.0,!=4.21.1,!=4.21.2,!=4.21.3,!=4.21.4,!=4.21.5,<5.0.0dev,>=3.20.3",
)
"""Requires-Dist of tensorflow 2.15.0 (numpy 1 only; protobuf below 5)."""
TF_28_REQUIRES = ("numpy>=1.20", "protobuf>=3.9.2")
"""Requires-Dist of tensorflow 2.8.0: no upper bound on protobuf, which is how 4.21 broke it."""


@dataclass(frozen=True)
class Fault:
    name: str
    code: str
    """The finding code tfdoctor must report."""
    outcome: str
    """RuntimeFacts.outcome the parent must classify it as."""
    tf_version: str = "2.19.1"
    requires: tuple[str, ...] = ()
    dists: tuple[tuple[str, str], ...] = ()
    """Extra (name, version) distributions to fake (metadata only), e.g. numpy 2.0.0."""
    timeout: float = 10.0
    fix_contains: str | None = None
    """A string the remediation's commands must contain."""
    extra: dict = field(default_factory=dict)


FAULTS = (
    Fault("sigill", "runtime.import-sigill", "signal"),
    Fault("avx_abort", "runtime.import-sigill", "signal"),
    Fault("segv", "runtime.import-crashed", "signal"),
    Fault("bus", "runtime.import-crashed", "signal"),
    Fault("abort", "runtime.import-crashed", "signal"),
    Fault("hang", "runtime.import-hang", "timeout", timeout=5.0),
    Fault("numpy2", "runtime.numpy-abi", "import-error", "2.15.0", TF_215_REQUIRES,
          (("numpy", "2.0.0"),), fix_contains="numpy<2.0.0,>=1.23.5"),
    Fault("numpy_api", "runtime.numpy-abi", "import-error", "2.15.0", TF_215_REQUIRES,
          (("numpy", "1.23.5"),), fix_contains="numpy<2.0.0,>=1.23.5"),
    Fault("protobuf", "runtime.protobuf", "import-error", "2.8.0", TF_28_REQUIRES,
          (("protobuf", "4.21.1"),), fix_contains="protobuf==3.20.3"),
    Fault("op_not_registered", "runtime.op-not-registered", "import-error"),
    Fault("stderr_flood", "runtime.import-failed", "import-error"),
    Fault("partial_exit", "runtime.no-result", "no-result"),
    Fault("bad_output", "runtime.bad-output", "bad-output"),
)
BY_NAME = {f.name: f for f in FAULTS}


def site_packages(venv: Path) -> Path:
    found = sorted(Path(venv).glob("lib/python3*/site-packages"))
    assert len(found) == 1, found
    return found[0]


def _dist_info(site: Path, name: str, version: str, requires: tuple[str, ...] = ()) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    (info / "INSTALLER").write_text("pip\n")
    (info / "RECORD").write_text("")


def make_fake_env(tmp_path: Path, fault: Fault, python: str | None = None) -> Path:
    """A venv under tmp_path whose `import tensorflow` runs the fake; returns its interpreter."""
    venv = Path(tmp_path) / f"venv-{fault.name}"
    subprocess.run([python or sys.executable, "-m", "venv", "--without-pip", str(venv)],
                   check=True, capture_output=True)
    site = site_packages(venv)
    package = site / "tensorflow"
    package.mkdir()
    (package / "__init__.py").write_text(_PREAMBLE + (FAKES / f"{fault.name}.py").read_text())
    _dist_info(site, "tensorflow", fault.tf_version, fault.requires)
    for name, version in fault.dists:
        _dist_info(site, name, version)
    return venv / "bin" / "python"


def read_pids(pidfile: Path) -> list[int]:
    if not pidfile.exists():
        return []
    return [int(line) for line in pidfile.read_text().split() if line.strip()]


def alive(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie awaiting its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except OSError:
        return False
