"""The kernel.* rules on snapshots of a Mac: its kernels are gathered for real from kernelspecs
written here, whose interpreters hold Mach-O headers cut from registry wheels
(data/binheads/SOURCES.md: the x86_64 and arm64 builds of libmetal_plugin.dylib, a universal2
MarkupSafe extension). A header is what tfdoctor reads of a kernel's interpreter, so these are
the facts a Mac with such a kernel gives."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from snapshots import RuleModules, apple_silicon, linux_cpu, merge, snap

from tfdoctor.engine.diagnose import diagnose
from tfdoctor.facts.typed import to_plain
from tfdoctor.gather.kernels import gather_jupyter

HEADS = Path(__file__).parents[1] / "data" / "binheads"
X86_64 = HEADS / "tensorflow_metal-libmetal_plugin.dylib-macosx_12_0_x86_64.head"
ARM64 = HEADS / "tensorflow_metal-libmetal_plugin.dylib-macosx_12_0_arm64.head"
UNIVERSAL2 = HEADS / "markupsafe-_speedups.cpython-311-darwin.so-macosx_10_9_universal2.head"
DIAGNOSED = "/Users/ada/venvs/tf/bin/python"  # tests/snapshots.py apple_silicon()
RULES = RuleModules("kernel_specs")


def interpreter(root: Path, name: str, head: Path | None) -> str:
    """An executable whose first bytes are a real Mach-O header (None: it does not exist)."""
    path = root / name / "bin" / "python3"
    if head is not None:
        path.parent.mkdir(parents=True)
        path.write_bytes(head.read_bytes())
        path.chmod(0o755)
    return str(path)


def kernel(data: Path, name: str, argv: list[str], display: str | None = None) -> None:
    spec = data / "kernels" / name
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [*argv, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": display or f"Python ({name})", "language": "python"}))


def mac(tmp_path: Path, base: dict | None = None, jupyter_on_path: bool = False, **overrides) -> object:
    """The snapshot of a Mac (tests/snapshots.apple_silicon) with the kernels under tmp_path."""
    path = ""
    if jupyter_on_path:
        bin_dir = tmp_path / "jupyter-bin"
        bin_dir.mkdir()
        (bin_dir / "jupyter").write_text("#!/opt/homebrew/bin/python3.12\n")
        (bin_dir / "jupyter").chmod(0o755)
        path = str(bin_dir)
    facts = gather_jupyter(DIAGNOSED, [], {"JUPYTER_PATH": str(tmp_path / "data"), "PATH": path},
                           "darwin", str(tmp_path / "home"))
    return snap(merge(base or apple_silicon(**overrides), {"jupyter": to_plain(facts)}))


def codes(findings) -> list[str]:
    return [f.code for f in findings]


def test_an_x86_64_kernel_on_apple_silicon(tmp_path):
    kernel(tmp_path / "data", "anaconda", [interpreter(tmp_path, "anaconda3", X86_64)], "Python 3 (Anaconda)")
    (found,) = RULES.run(mac(tmp_path))
    assert found.code == "kernel.rosetta" and found.severity.value == "warning"
    assert found.evidence["archs"] == ["x86_64"] and found.evidence["hw_arm64"] is True
    assert found.title == ("Jupyter kernel anaconda (Python 3 (Anaconda)) runs its Python as x86_64 under "
                           "Rosetta 2 (its binary holds x86_64 code only)")
    # the environment diagnosed is arm64 with TensorFlow: it takes the kernel's name
    assert list(found.remediation.commands) == [
        f"{DIAGNOSED} -m pip install -- ipykernel",
        f"{DIAGNOSED} -m ipykernel install --user --name anaconda --display-name 'Python 3 (Anaconda)'"]


def test_a_universal2_kernel_started_with_arch_x86_64(tmp_path):
    python = interpreter(tmp_path, "py", UNIVERSAL2)
    kernel(tmp_path / "data", "rosetta", ["arch", "-x86_64", python])
    kernel(tmp_path / "data", "native", [python])
    kernel(tmp_path / "data", "arm", [interpreter(tmp_path, "arm", ARM64)])
    (found,) = RULES.run(mac(tmp_path))
    assert (found.code, found.evidence["kernel"], found.evidence["started_as"]) == ("kernel.rosetta", "rosetta", "x86_64")
    assert found.title.endswith("(`arch -x86_64`)")


def test_an_x86_64_kernel_is_no_problem_off_apple_silicon_or_when_it_is_the_one_diagnosed(tmp_path):
    kernel(tmp_path / "data", "intel", [interpreter(tmp_path, "intel", X86_64)])
    assert RULES.run(mac(tmp_path, linux_cpu())) == []
    diagnosed_kernel = mac(tmp_path)
    diagnosed_kernel.jupyter.kernels[0].is_target = True  # the arch.* rules judge that one
    assert RULES.run(diagnosed_kernel) == []


def test_when_the_diagnosed_python_is_translated_the_x86_kernel_is_removed(tmp_path):
    kernel(tmp_path / "data", "intel", [interpreter(tmp_path, "intel", X86_64)])
    translated = apple_silicon(python={"process_arch": "x86_64", "translated": True})
    (found,) = RULES.run(mac(tmp_path, translated, jupyter_on_path=True))
    assert found.code == "kernel.rosetta"
    assert list(found.remediation.commands) == ["jupyter kernelspec remove -f intel"]


def test_a_kernel_of_a_deleted_venv(tmp_path):
    kernel(tmp_path / "data", "old-project", [interpreter(tmp_path, "old", None)])
    (found,) = RULES.run(mac(tmp_path))
    assert found.code == "kernel.missing-python" and found.severity.value == "warning"
    assert found.title == (f"Jupyter kernel old-project (Python (old-project)) starts "
                           f"{tmp_path}/old/bin/python3, which does not exist")
    assert list(found.remediation.commands) == [f"rm -r -- {tmp_path}/data/kernels/old-project"]
    (with_jupyter,) = RULES.run(mac(tmp_path, jupyter_on_path=True))
    assert list(with_jupyter.remediation.commands) == ["jupyter kernelspec remove -f old-project"]


def test_kernels_without_tensorflow(tmp_path):
    arm = interpreter(tmp_path, "base", ARM64)
    site = Path(arm).parent.parent / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    (site / "numpy-2.1.3.dist-info").mkdir()
    kernel(tmp_path / "data", "python3", [arm], "Python 3 (ipykernel)")
    (found,) = RULES.run(mac(tmp_path))
    assert (found.code, found.severity.value) == ("kernel.no-tensorflow", "warning")
    assert found.title == "No Jupyter kernel runs this environment, and kernel python3 has no TensorFlow"
    assert list(found.remediation.commands)[-1] == (
        f"{DIAGNOSED} -m ipykernel install --user --name tf --display-name 'Python (tf)'")
    # with a kernel of the environment diagnosed, choosing it is the fix
    ours = mac(tmp_path)
    ours.jupyter.kernels.append(replace(ours.jupyter.kernels[0], name="tf", is_target=True))
    (info,) = RULES.run(ours)
    assert (info.code, info.severity.value) == ("kernel.no-tensorflow", "info")
    assert info.title == "Jupyter kernel python3 has no TensorFlow; kernel tf runs this environment"
    # no TensorFlow here either: nothing to say
    assert RULES.run(mac(tmp_path, packages=[])) == []


def test_a_snapshot_without_kernel_facts_does_not_know_them(tmp_path):
    """No `jupyter` in a snapshot (one from before, one triaged from a report) is unknown: the
    kernel rules are not even loaded, and nothing is said of kernels."""
    report = diagnose(snap(apple_silicon()))
    assert not [f for f in report.findings if f.code.startswith("kernel.")]
    kernel(tmp_path / "data", "gone", [interpreter(tmp_path, "gone", None)])
    assert "kernel.missing-python" in codes(diagnose(mac(tmp_path)).findings)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_named_kernel_json_is_skipped_not_waited_on(tmp_path):
    """jupyter_client takes a folder as a kernel only when its kernel.json is a file."""
    spec = tmp_path / "data" / "kernels" / "fifo"
    spec.mkdir(parents=True)
    os.mkfifo(spec / "kernel.json")
    assert mac(tmp_path).jupyter.kernels == []
