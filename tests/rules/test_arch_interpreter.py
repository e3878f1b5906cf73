"""The arch.* rules on the interpreter (checks/arch_interpreter.py) on snapshots of real
situations (sources in tests/snapshots.py and in each test's docstring)."""

from __future__ import annotations

import pytest
from snapshots import RuleModules, apple_silicon, linux_cpu, snap

from tfdoctor.model import Severity

architecture = RuleModules("arch_interpreter")

ROSETTA_PROCESS = {"process_arch": "x86_64", "translated": True}


def codes(findings):
    return [f.code for f in findings]


def test_native_arm64_is_ok():
    findings = architecture.run(snap(apple_silicon()))
    assert codes(findings) == ["arch.native"]
    assert findings[0].severity is Severity.OK
    assert "arm64" in findings[0].title


def test_universal2_started_under_rosetta():
    """python.org's universal2 binary launched from a Terminal set to 'Open using Rosetta':
    platform.machine() is x86_64 and sysctl.proc_translated is 1 (Apple, 'About the Rosetta
    translation environment')."""
    findings = architecture.run(snap(apple_silicon(python=ROSETTA_PROCESS)))
    assert codes(findings) == ["arch.universal2-as-x86", "arch.rosetta"]
    route, rosetta = findings
    assert route.severity is rosetta.severity is Severity.ERROR
    assert "arch.rosetta" in route.explains
    assert {"runtime.no-gpu", "runtime.import-sigill"} <= set(rosetta.explains)
    assert any(cmd.startswith("arch -arm64 ") for cmd in route.remediation.commands)


def test_universal2_from_a_rosetta_shell_names_the_shell():
    """zsh started by a Terminal set to 'Open using Rosetta' runs translated (P_TRANSLATED), and
    so does every universal2 program it starts: the fix is the shell, not Python."""
    shell = {"parent": {"pid": 4242, "executable": "/bin/zsh", "translated": True,
                        "format": "mach-o-fat", "archs": ["x86_64", "arm64e"]}}
    findings = architecture.run(snap(apple_silicon(python=ROSETTA_PROCESS, shell=shell)))
    route = findings[0]
    assert route.code == "arch.universal2-as-x86"
    assert route.evidence["parent_shell"] == "/bin/zsh" and route.evidence["parent_shell_arch"] == "x86_64"
    assert "Your shell (/bin/zsh) itself runs under Rosetta" in route.remediation.text
    assert route.remediation.commands[0] == "arch -arm64 /bin/zsh -l"


def test_intel_homebrew_python():
    """Homebrew installed from a Rosetta shell lives in /usr/local (Intel prefix); Apple-silicon
    Homebrew lives in /opt/homebrew (docs.brew.sh/Installation)."""
    data = apple_silicon(python={**ROSETTA_PROCESS, "binary": {
        "path": "/usr/local/Cellar/python@3.11/3.11.9/Frameworks/Python.framework/Versions/3.11/bin/python3.11",
        "format": "mach-o", "archs": ["x86_64"]}})
    route = architecture.run(snap(data))[0]
    assert route.code == "arch.x86-only-interpreter"
    assert route.evidence["route"] == "homebrew-intel"
    assert any("/opt/homebrew/bin/brew install python" in c for c in route.remediation.commands)


def test_pyenv_built_under_rosetta():
    data = apple_silicon(python={**ROSETTA_PROCESS, "version": "3.10.13", "binary": {
        "path": "/Users/ada/.pyenv/versions/3.10.13/bin/python3.10", "format": "mach-o",
        "archs": ["x86_64"]}})
    route = architecture.run(snap(data))[0]
    assert route.evidence["route"] == "pyenv-built-under-rosetta"
    assert route.remediation.commands == ("arch -arm64 pyenv install --force 3.10.13",)


def test_anaconda_intel_installer_osx64_env():
    """Anaconda's Intel installer on an M1 gives `platform : osx-64` in `conda info`; the env's
    conda-meta records carry "subdir": "osx-64"."""
    data = apple_silicon(python={**ROSETTA_PROCESS,
                                 "binary": {"path": "/Users/ada/anaconda3/bin/python3.11",
                                            "format": "mach-o", "archs": ["x86_64"]},
                                 "conda": {"prefix": "/Users/ada/anaconda3", "root": "/Users/ada/anaconda3",
                                           "subdir": "osx-64"}})
    findings = architecture.run(snap(data))
    assert codes(findings) == ["arch.conda-osx-64", "arch.rosetta"]
    assert "Miniforge" in findings[0].remediation.text
    assert "CONDA_SUBDIR=osx-arm64 conda create -n tf-arm64 python=3.11" in findings[0].remediation.commands


def test_translated_without_binary_facts_still_rosetta():
    data = apple_silicon(python={**ROSETTA_PROCESS, "binary": {"path": "", "format": None, "archs": []}})
    assert codes(architecture.run(snap(data))) == ["arch.rosetta"]


def test_a_python_inside_an_intel_r_is_fixed_by_an_arm64_r():
    """reticulate loads libpython into R's process: an arm64 Python cannot be loaded by an Intel
    R, so the fix names CRAN's arm64 R and a check that prints aarch64, not an arm64 Python."""
    inside_r = {**ROSETTA_PROCESS, "binary": {"path": "", "format": None, "archs": []},
                "host_program": "R x86_64-apple-darwin17.0"}
    finding = next(f for f in architecture.run(snap(apple_silicon(python=inside_r))) if f.code == "arch.rosetta")
    assert "R x86_64-apple-darwin17.0" in finding.remediation.text and "arm64 R" in finding.remediation.text
    assert finding.remediation.link == "https://cran.r-project.org/bin/macosx/"
    assert "Rscript -e 'cat(R.version$arch, \"\\n\")'" in finding.remediation.commands
    plain = next(f for f in architecture.run(snap(apple_silicon(python={**inside_r, "host_program": None})))
                 if f.code == "arch.rosetta")
    assert "platform.machine()" in plain.remediation.commands[0] and "R" not in plain.remediation.text.split()


def test_intel_mac_is_native():
    data = apple_silicon(host={"hw_arm64": False, "chip": "Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz"},
                         python={"process_arch": "x86_64", "translated": False})
    findings = architecture.run(snap(data))
    assert codes(findings) == ["arch.native"]


def test_amd64_container_on_apple_silicon():
    """An amd64 image under Docker Desktop on an M1: x86_64 process, but /proc/cpuinfo comes from
    the arm64 VM kernel: 'CPU implementer : 0x00' and arm64 Features, no AVX (docker/for-mac#6512,
    #5485; facts docker.cpuinfo_* in tests/facts/mac_facts.json)."""
    data = linux_cpu(host={"cpu_implementer": "0x00", "cpu_brand": None, "container": "docker",
                           "cpu_flags": ["fp", "asimd", "evtstrm", "aes", "pmull", "sha1", "sha2", "crc32"]})
    findings = architecture.run(snap(data))
    assert codes(findings) == ["arch.emulated-container"]
    assert findings[0].evidence["cpu_has_avx"] is False
    assert "--platform linux/arm64" in findings[0].remediation.commands[0]
    assert findings[0].remediation.code == ("FROM --platform=linux/arm64 BASE",)  # a Dockerfile line, not shell


def test_an_amd64_container_seen_in_qemus_own_lines(tmp_path):
    """A bug report: a Mac host, an image run by Docker, and QEMU's lines in the pasted text
    (linux-user/signal.c's template; the real text of tensorflow/tensorflow#52972): the text alone
    says an x86_64 process was emulated, whatever the report says of its Python. Where it also
    shows the emulated CPU failing (TensorFlow's AVX message), that failure's finding names the
    emulator and the arm64 image, and explains QEMU's line: the text's story, told once."""
    from log_cases import LOGS, WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    def report(text: str):
        s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True},
                  "host": {"system": "Darwin", "chip": "Apple M1", "hw_arm64": True},
                  "unknown": ["packages"]})
        (tmp_path / "posted.md").write_text(text, encoding="utf-8")
        s.log = keep.read(tmp_path / "posted.md", identity=WHO)
        return diagnose(s)

    avx = (LOGS / "avx_qemu_docker.txt").read_text(encoding="utf-8")
    r = report(avx)
    assert r.diagnosis().code == "log.avx-missing" and "an amd64 container or emulator" in r.diagnosis().title
    assert r.diagnosis().remediation.commands == ("docker run --platform linux/arm64 ...",)
    assert {c.code for c in r.consequences(r.diagnosis())} >= {"log.qemu-emulation"}
    assert "arch.emulated-container" not in {f.code for f in r.findings}
    loader = "qemu-x86_64: Could not open '/lib64/ld-linux-x86-64.so.2': No such file or directory"
    assert report(loader).diagnosis().code == "arch.emulated-container"
    other = "qemu-aarch64-static: uncaught target signal 11 (Segmentation fault) - core dumped"
    assert "arch.emulated-container" not in {f.code for f in report(other).findings}


def test_an_amd64_image_docker_names_or_a_report_asks_for_on_apple_silicon(tmp_path):
    """The Docker CLI's platform warning (pranjal-joshi/Screeni-py#195) names both platforms: an
    amd64 image on an arm64 host is emulated whatever else is known. A report's own
    `--platform linux/x86_64` (PINTO0309/onnx2tf#548) is emulated on Apple silicon only, and an
    x86 crash beside it is the container's, not Rosetta 2's."""
    from log_cases import LOGS, WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    def report(name: str, hw_arm64: bool | None, extra: str = ""):
        host = {"system": "Darwin"} | ({} if hw_arm64 is None else {"hw_arm64": hw_arm64})
        s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True}, "host": host,
                  "unknown": ["packages"]})
        (tmp_path / "posted.md").write_text((LOGS / name).read_text(encoding="utf-8") + extra, encoding="utf-8")
        s.log = keep.read(tmp_path / "posted.md", identity=WHO)
        return diagnose(s)

    warned = report("docker_platform_mismatch_avx.txt", None)  # its AVX message tells the container's story
    assert warned.diagnosis().code == "log.avx-missing" and "an amd64 container or emulator" in warned.diagnosis().title
    assert {c.code for c in warned.consequences(warned.diagnosis())} >= {"log.amd64-image", "log.qemu-emulation"}
    only_asked = report("docker_platform_x86_64_flag.txt", True)
    assert only_asked.diagnosis().code == "arch.emulated-container"
    assert "Docker runs the linux/x86_64 image emulated" in only_asked.diagnosis().title
    asked = report("docker_platform_x86_64_flag.txt", True, "\n>>> import tensorflow\nIllegal instruction\n")
    assert asked.diagnosis().code == "log.illegal-instruction"
    assert "an amd64 container or emulator" in asked.diagnosis().title
    assert "arch.rosetta" not in {f.code for f in asked.findings}
    on_intel = report("docker_platform_x86_64_flag.txt", False)
    assert "arch.emulated-container" not in {f.code for f in on_intel.findings}
    assert next(f for f in on_intel.findings if f.code == "log.amd64-image").severity is Severity.INFO


def test_an_x86_64_python_in_a_container_on_apple_silicon_is_not_rosettas(tmp_path):
    """A report of a Mac M2 running a Docker image whose x86_64 Python hit TensorFlow's AVX guard
    and QEMU's abort: the process is x86_64, but inside the container QEMU (or Rosetta for Linux)
    runs it, not Rosetta 2, so arch.rosetta is not said; outside a container it is."""
    from log_cases import LOGS, WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    def report(container: dict):
        s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True},
                  "host": {"system": "Darwin", "chip": "Apple M2", "hw_arm64": True} | container,
                  "python": {"version": "", "implementation": "", "executable": "", "process_arch": "x86_64"},
                  "unknown": ["packages"]})
        s.log = keep.read(LOGS / "avx_qemu_docker.txt", identity=WHO)
        return {f.code for f in diagnose(s).findings}

    assert "arch.rosetta" not in report({"container": "docker"})
    assert "arch.rosetta" in report({})


@pytest.mark.parametrize("builder", [apple_silicon, linux_cpu])
def test_healthy_machines_give_no_problem(builder):
    assert all(f.severity is Severity.OK for f in architecture.run(snap(builder())))


def test_snapshot_without_process_arch_makes_no_claim():
    """A snapshot (from another tool, or hand-edited) with no process architecture: neither
    'runs natively' nor a mismatch of every wheel against 'None'."""
    binaries = RuleModules("arch_binaries")

    data = apple_silicon(python={"process_arch": ""})
    assert architecture.run(snap(data)) == [] and binaries.run(snap(data)) == []


def test_an_abort_under_qemu_is_the_emulations(tmp_path):
    """protobuf's FATAL template (google/protobuf/stubs/logging.h LOG(FATAL) with CHECK, as in
    tests/data/logs/templates.json) followed by QEMU's linux-user/signal.c template for the
    signal the emulated process died of: the emulation is named first, the abort is its symptom."""
    from log_cases import WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True},
              "host": {"system": "Darwin", "chip": "Apple M1", "hw_arm64": True}, "unknown": ["packages"]})
    (tmp_path / "posted.md").write_text(
        "[libprotobuf FATAL google/protobuf/message_lite.cc:353] CHECK failed: target + size == res: \n"
        "terminate called after throwing an instance of 'google::protobuf::FatalException'\n"
        "qemu: uncaught target signal 6 (Aborted) - core dumped\n", encoding="utf-8")
    s.log = keep.read(tmp_path / "posted.md", identity=WHO)
    r = diagnose(s)
    assert r.diagnosis().code == "arch.emulated-container"
    assert "log.protobuf-fatal" in {c.code for c in r.consequences(r.diagnosis())}


def _reported(tmp_path, text: str, packages: list | None = None, host: dict | None = None):
    """A bug report's snapshot (no Python section: the report does not say what it runs as) and
    its pasted text, diagnosed."""
    from log_cases import WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True},
              "host": host or {"system": "Darwin", "chip": "Apple M1", "hw_arm64": True},
              "packages": packages or []} | ({} if packages else {"unknown": ["packages"]}))
    (tmp_path / "posted.md").write_text(text, encoding="utf-8")
    s.log = keep.read(tmp_path / "posted.md", identity=WHO)
    return diagnose(s)


def test_an_x86_crash_of_a_tensorflow_with_x86_64_wheels_only_is_rosetta(tmp_path):
    """zsh's job line for SIGILL (Src/signames: 'illegal hardware instruction', then the job's
    command) under a TensorFlow whose macOS wheels are x86_64 only (2.2.0: compat_matrix.json
    macos_floors, from the registry's file list): pip put it into an x86_64 Python, which on
    Apple silicon runs under Rosetta 2. Without the version the crash alone does not say it."""
    from snapshots import _pkg

    crash = "zsh: illegal hardware instruction  python3\n"
    old = [_pkg("tensorflow", "2.2.0", ["cp38-cp38-macosx_10_11_x86_64"])]
    report = _reported(tmp_path, crash, old)
    assert report.diagnosis().code == "arch.rosetta"
    assert "x86_64 only" in report.diagnosis().evidence["shown_by"]
    assert "log.illegal-instruction" in {c.code for c in report.consequences(report.diagnosis())}
    assert "arch.rosetta" not in {f.code for f in _reported(tmp_path, crash).findings}
    native = [_pkg("tensorflow", "2.16.2", ["cp311-cp311-macosx_12_0_arm64"])]
    assert "arch.rosetta" not in {f.code for f in _reported(tmp_path, crash, native).findings}


def test_a_tensorflow_older_than_every_arm64_build_is_rosetta_without_a_crash(tmp_path):
    """The first arm64 TensorFlow was Apple's fork of 2.4.0rc0 (tfdoctor.knowledge.eras); the
    registry's first macOS arm64 wheel is tensorflow-macos 2.5.0 (compat_matrix.json macos_floors,
    from its file list). A report from Apple silicon with TensorFlow 1.15 installed (pip's wheels
    for it are macosx_10_11_x86_64) speaks of an x86_64 Python. The fork (tensorflow-macos 0.1a3,
    whose TensorFlow calls itself 2.4.0rc0, which reports give as "2.4" or as its own 0.1aN, below
    TensorFlow's first release 0.12.0), conda's own builds and arm64 releases are not judged; an
    unreadable version says nothing."""
    from snapshots import _pkg

    old = _reported(tmp_path, "", [_pkg("tensorflow", "1.15.0", ["cp37-cp37m-macosx_10_11_x86_64"])])
    assert old.diagnosis().code == "arch.rosetta"
    assert "before 2.4.0rc0 (Apple's fork; on the registry tensorflow-macos 2.5.0)" in old.diagnosis().evidence["shown_by"]
    conda = {"name": "tensorflow", "version": "1.15.0", "installer": "conda"}
    for packages in ([_pkg("tensorflow-macos", "0.1a3", [])], [_pkg("tensorflow", "2.4.0rc0", [])], [_pkg("tensorflow", "2.4", [])],
                     [_pkg("tensorflow", "0.1a0", [])],
                     [_pkg("tensorflow", "not-a-version", [])], [conda],
                     [_pkg("tensorflow-macos", "2.5.0", ["cp38-cp38-macosx_11_0_arm64"])]):
        assert "arch.rosetta" not in {f.code for f in _reported(tmp_path, "", packages).findings}, packages
    stated = snap({"schema_version": 1, "target": {"python": "python3", "ok": True}, "unknown": ["packages"],
                   "host": {"system": "Darwin", "chip": "Apple M1", "hw_arm64": True},
                   "packages": [_pkg("tensorflow", "1.15.0", [])]})
    assert "arch.rosetta" not in {f.code for f in architecture.run(stated)}  # a report's words: maybe wanted
    intel = {"system": "Darwin", "chip": "Intel Core i7", "hw_arm64": False}
    assert "arch.rosetta" not in {f.code for f in _reported(tmp_path, "", [conda | {"installer": "pip"}], intel).findings}


def test_a_command_started_with_arch_x86_64_is_the_launch_route(tmp_path):
    """zsh names the job that died: `arch -x86_64 python` picked the x86_64 slice of the binary
    (arch(1)), so the process ran under Rosetta 2 by the user's own launch."""
    report = _reported(tmp_path, "zsh: illegal hardware instruction  arch -x86_64 python\n")
    assert report.diagnosis().code == "arch.universal2-as-x86"
    assert report.diagnosis().evidence["started_with"] == "arch -x86_64 python"


@pytest.mark.parametrize("text, shown, explains", [
    # tensorflow/core/platform/cpu_feature_guard.cc (x86 builds only) lists the x86 features the
    # running CPU has: on Apple silicon an x86_64 TensorFlow ran, translated
    ("I tensorflow/core/platform/cpu_feature_guard.cc:145] This TensorFlow binary is optimized with "
     "Intel(R) MKL-DNN to use the following CPU instructions in performance critical operations:  "
     "SSE4.1 SSE4.2\n", "SSE4.1 SSE4.2", "log.x86-build"),
    # Intel MKL has only x86 code (JuliaLinearAlgebra/MKL.jl#146): its refusal of the CPU says an
    # x86_64 process ran, whatever library loaded it
    ("Intel MKL FATAL ERROR: This system does not meet the minimum requirements for use of the "
     "Intel(R) Math Kernel Library.\nThe processor must support the Intel(R) Advanced Vector "
     "Extensions (Intel(R) AVX) instructions.\n", "Intel MKL FATAL ERROR", "log.avx-missing"),
])
def test_text_only_x86_code_prints_on_apple_silicon_is_rosetta_and_on_linux_says_nothing_of_it(
        tmp_path, text, shown, explains):
    report = _reported(tmp_path, text)
    assert report.diagnosis().code == "arch.rosetta"
    assert shown in report.diagnosis().evidence["shown_by"]
    assert explains in report.diagnosis().explains and explains in {f.code for f in report.findings}
    linux = _reported(tmp_path, text, host={"system": "Linux", "cpu_flags": ["sse4_1", "sse4_2"]})
    assert not [f for f in linux.findings if f.code in ("arch.rosetta", "log.x86-build")]


def test_a_translated_python_in_a_report_about_another_program_is_information(tmp_path):
    """A report whose Python runs as x86_64 on Apple silicon, whose package list is what was
    mentioned (none), and whose pasted text never names TensorFlow (zsh's job line of another
    program): Rosetta is true and not TensorFlow's problem. The same text importing TensorFlow
    keeps the error."""
    from log_cases import WHO

    from tfdoctor.logtext import keep

    def rosetta_of(text: str):
        s = snap(apple_silicon(python={**ROSETTA_PROCESS, "site_packages": []}, packages=[]))
        (tmp_path / "posted.md").write_text(text, encoding="utf-8")
        s.log = keep.read(tmp_path / "posted.md", identity=WHO)
        return next(f for f in architecture.run(s) if f.code == "arch.rosetta")

    assert rosetta_of("zsh: illegal hardware instruction  ./video_tool\n").severity is Severity.INFO
    assert rosetta_of("import tensorflow as tf\nzsh: illegal hardware instruction  python3\n").severity is Severity.ERROR


def test_condas_own_channel_list_naming_osx_64_on_an_apple_chip_is_the_intel_conda(tmp_path):
    """conda's PackagesNotFoundError lists the channels it searched, each ending in the
    environment's subdir (https-deeplearning-ai/...#90's text): osx-64 on an Apple chip is an Intel
    conda, observed, though the report says nothing of its Python. On an Intel Mac it is no
    finding."""
    from log_cases import LOGS

    text = (LOGS / "conda_tensorflow_deps_osx64.txt").read_text(encoding="utf-8")
    top = _reported(tmp_path, text).diagnosis()
    assert top.code == "arch.conda-osx-64" and top.basis == "observed"
    assert "log.conda-tensorflow-deps-missing" in {f.code for f in _reported(tmp_path, text).consequences(top)}
    intel = _reported(tmp_path, text, host={"system": "Darwin", "chip": "Intel Core i7", "hw_arm64": False})
    assert "arch.conda-osx-64" not in {f.code for f in intel.findings}
