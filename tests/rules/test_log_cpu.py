"""checks/log_cpu.py: the wrong CPU and binaries of the other architecture, from real public threads
(tests/data/logs/, sources in SOURCES.json), each diagnosed with the facts that change the answer:
translated or native, an emulated container, the system."""

from __future__ import annotations

import pytest

from log_cases import LOGS, WHO, LogRules, commands, one
from snapshots import apple_silicon, linux_cpu, snap

from tfdoctor.logtext import keep
from tfdoctor.model import Severity

check = LogRules("log_cpu")
diagnose = check.diagnose
ROSETTA = {"python": {"process_arch": "x86_64", "translated": True}}


def test_an_x86_tensorflows_cpu_guard_line_on_apple_silicon():
    """apple/tensorflow_macos#18: the line cpu_feature_guard.cc prints only in x86 builds. On a
    Mac whose Python runs natively as arm64 it came from another (translated) process; on a Linux
    x86 CPU it is everyday output and no finding at all."""
    f = one(diagnose(apple_silicon(), "cpu_guard_onednn_intel_mac.txt"), "log.x86-build")
    assert f.severity == Severity.INFO and "SSE4.2 AVX AVX2 FMA" in f.title
    assert "the log came from another process" in f.title
    assert not [f for f in diagnose(linux_cpu(), "cpu_guard_onednn_intel_mac.txt") if f.code == "log.x86-build"]


def test_an_illegal_instruction_of_a_program_that_is_not_python_is_that_programs(tmp_path):
    """zsh's job line names the program that died ('zsh: illegal hardware instruction  CMD'):
    where it is not Python, no TensorFlow is known and the text never names TensorFlow, the crash
    is that program's (information); a Python command stays TensorFlow's suspect."""
    def run(command: str):
        s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True},
                  "host": {"system": "Darwin", "hw_arm64": True, "chip": "Apple M1"}, "unknown": ["packages"]})
        (tmp_path / "posted.md").write_text(f"zsh: illegal hardware instruction  {command}\n", encoding="utf-8")
        s.log = keep.read(tmp_path / "posted.md", identity=WHO)
        return one(check.run(s), "log.illegal-instruction")

    other = run("./video_tool --scan")
    assert other.severity is Severity.INFO and "`./video_tool --scan`" in other.title
    assert run("python3 train.py").severity is Severity.ERROR


def test_illegal_instruction_under_rosetta():
    f = one(diagnose(apple_silicon(**ROSETTA), "illegal_instruction_4.txt"), "log.illegal-instruction")
    assert "x86_64 under Rosetta 2" in f.title and f.evidence["translated"] is True
    assert commands(f).startswith("arch file ") and " -m pip " not in commands(f)  # no install into it


def test_illegal_instruction_seen_from_a_native_python_came_from_another_process():
    f = one(diagnose(apple_silicon(), "zsh_illegal_hardware_instruction.txt"), "log.illegal-instruction")
    assert "runs natively as arm64" in f.title and "which -a python3" in commands(f)


def test_fatal_python_illegal_instruction_under_rosetta():
    f = one(diagnose(apple_silicon(**ROSETTA), "fatal_python_illegal_instruction.txt"), "log.illegal-instruction")
    assert "Rosetta 2" in f.title


def test_pycharms_exit_code_132_is_an_illegal_instruction():
    # tensorflow/tensorflow#47799: PyCharm shows only its run console's last line
    f = one(diagnose(apple_silicon(**ROSETTA), "pycharm_exit_code_132.txt"), "log.illegal-instruction")
    assert "Process finished with exit code 132 (interrupted" in f.evidence["matched"] and "Rosetta 2" in f.title


def test_bashs_job_report_of_an_illegal_instruction_names_the_command():
    # Svdvoort/PrognosAIs_glioma#4: "line 51:   276 Illegal instruction     python3 /get_predictions.py ..."
    f = one(diagnose(apple_silicon(**ROSETTA), "bash_job_illegal_instruction.txt"), "log.illegal-instruction")
    assert f.evidence["log_command"].startswith("python3 /get_predictions.py")


def test_gdbs_and_fishs_reports_of_an_illegal_instruction():
    # morrolinux/simple-ehm#2: a Pentium without AVX, gdb's SIGILL line in TensorFlow's library
    f = one(diagnose(linux_cpu(host={"cpu_flags": ["sse4_2"]}), "gdb_sigill_tensorflow.txt"), "log.illegal-instruction")
    assert "has no AVX, which the TensorFlow build needs" in f.title
    # fish's job report (src/proc.cpp) names the command in quotes
    s = snap(apple_silicon(**ROSETTA))
    s.log = keep.from_bytes(b"fish: 'python' terminated by signal SIGILL (Illegal instruction)\n", "paste", identity=WHO)
    (f,) = [f for f in check.run(s) if f.code == "log.illegal-instruction"]
    assert f.evidence["log_command"] == "python" and "Rosetta 2" in f.title


def test_an_illegal_instruction_named_in_a_sentence_is_not_the_message():
    s = snap(apple_silicon())
    s.log = keep.from_bytes(b"When I run it an Illegal instruction error appears\n", "paste", identity=WHO)
    assert check.run(s) == []


def test_dockers_platform_warning_is_an_emulated_image():
    f = one(diagnose(linux_cpu(), "docker_platform_mismatch_avx.txt"), "log.amd64-image")
    assert f.severity is Severity.WARNING and f.evidence["log_host"] == "linux/arm64/v8"
    assert "--platform linux/arm64" in commands(f)


@pytest.mark.parametrize("text, image", [
    ("FROM --platform=linux/amd64 python:3.9-slim", "linux/amd64"),
    ("DOCKER_DEFAULT_PLATFORM=linux/amd64 docker compose up", "linux/amd64"),
    ("services:\n  app:\n    platform: linux/x86_64", "linux/x86_64"),
    ("we run the image as linux/amd64 on our M1 laptops", "linux/amd64"),
    ("curl -LO https://example.org/dist/linux/amd64/tool.tar.gz", None),  # a path in a URL
    ("docker run --platform linux/arm64 tensorflow/tensorflow", None),
])
def test_amd64_asked_for_in_any_of_dockers_ways_and_not_in_a_url(text, image):
    s = snap(apple_silicon())
    s.log = keep.from_bytes(text.encode(), "paste", identity=WHO)
    found = [f for f in check.run(s) if f.code == "log.amd64-image"]
    assert [f.evidence["log_image"] for f in found] == ([image] if image else [])


def test_avx_missing_in_an_emulated_container():
    data = linux_cpu(host={"container": "docker", "cpu_flags": ["sse4_2"]})
    f = one(diagnose(data, "avx_qemu_docker.txt"), "log.avx-missing")
    assert f.evidence["log_emulator"] == "qemu" and "--platform linux/arm64" in commands(f)


def test_qemus_own_line_names_the_emulation():
    # tensorflow/tensorflow#52972: QEMU's linux-user prints "qemu: uncaught target signal 6 (Aborted)"
    f = one(diagnose(apple_silicon(), "avx_qemu_docker.txt"), "log.qemu-emulation")
    assert f.severity == Severity.WARNING and f.evidence["log_signal"] == "6"
    assert "QEMU's emulation of x86_64" in f.title and "--platform linux/arm64" in commands(f)


def test_tensorflows_own_bucket_check_failing_is_the_emulation():
    """tensorflow/tensorflow#52845: "F .../sampler.cc:42] Check failed: bucket_limits_[i] >
    bucket_limits_[i - 1] (0 vs. 10)", the line a paste keeps when it stops before QEMU's own:
    TensorFlow checks buckets it computes itself, unordered only under a wrong x86 emulation.
    Beside QEMU's line it is one occurrence, not two."""
    f = one(diagnose(linux_cpu(host={"container": "docker"}), "qemu_sampler_bucket_limits.txt"), "log.qemu-emulation")
    assert f.title.startswith("TensorFlow's check of the buckets it computes itself failed")
    assert "--platform linux/arm64" in commands(f)
    s = snap(apple_silicon())
    s.log = keep.from_bytes((LOGS / "qemu_sampler_bucket_limits.txt").read_bytes()
                            + b"qemu: uncaught target signal 6 (Aborted) - core dumped\n", "paste", identity=WHO)
    assert [f.code for f in check.run(s)].count("log.qemu-emulation") == 1


def test_illegal_instruction_on_a_cpu_with_avx_came_from_elsewhere():
    f = one(diagnose(linux_cpu(), "illegal_instruction_4.txt"), "log.illegal-instruction")
    assert "has AVX" in f.title and f.evidence["cpu_flags_avx"] is True


def test_avx_missing_under_rosetta():
    s = snap(apple_silicon(**ROSETTA))
    s.log = keep.from_bytes(b"The TensorFlow library was compiled to use AVX instructions, but these aren't "
                            b"available on your machine.\nzsh: abort      python3\n", "paste", identity=WHO)
    (f,) = [f for f in check.run(s) if f.code == "log.avx-missing"]
    assert "Rosetta 2" in f.title


def test_intel_mkl_refusing_the_cpu_is_the_x86_process_under_rosetta_and_the_mkl_build_elsewhere():
    """faylward/viralrecall#16: Intel MKL's start-up check lists what it needs. Translated on an
    M1 it is Rosetta's missing AVX; on an x86 CPU of its own it is the MKL build that needs more
    than the CPU has, fixed by builds without MKL (the reporter's own fix was conda's nomkl)."""
    rosetta = one(diagnose(apple_silicon(**ROSETTA), "mkl_minimum_requirements_m1.txt"), "log.avx-missing")
    assert "Rosetta 2" in rosetta.title and "Intel MKL (x86 code only) needs SSSE3, SSE4.2, AVX" in rosetta.title
    old_cpu = one(diagnose(linux_cpu(), "mkl_minimum_requirements_m1.txt"), "log.avx-missing")
    assert "cannot run there" in old_cpu.title and commands(old_cpu) == "conda install nomkl numpy scipy"
    assert "TensorFlow needs" not in old_cpu.title


def test_avx_missing_with_qemus_line_is_the_containers_even_beside_a_translated_python():
    # the text's own QEMU line says where it ran: an emulated container, whatever this Python is
    f = one(diagnose(apple_silicon(**ROSETTA), "avx_qemu_docker.txt"), "log.avx-missing")
    assert "an amd64 container or emulator" in f.title


def test_x86_64_binary_imported_by_a_native_arm64_python():
    f = one(diagnose(apple_silicon(), "arch_incompatible_pywrap.txt"), "log.arch-mismatch")
    assert f.evidence["binary_arch"] == "x86_64" and "--force-reinstall --no-cache-dir -- tensorflow" in commands(f)


def test_wrong_architecture_under_rosetta():
    f = one(diagnose(apple_silicon(**ROSETTA), "arch_wrong_architecture.txt"), "log.arch-mismatch")
    assert "Rosetta 2" in f.title


def test_an_import_the_report_says_fails_for_the_architecture_asks_what_python_runs_as():
    (f,) = [f for f in diagnose(apple_silicon(), "said_import_architecture.txt") if f.code == "log.arch-mismatch"]
    assert f.evidence["said"] is True and "Rosetta 2 starts even a universal2 Python as x86_64" in f.remediation.text
    assert commands(f).endswith("-c \"import platform; print(platform.machine())\"")


def test_a_library_that_is_no_mach_o_file_names_its_package_and_no_architecture():
    # google/grain#620: a package that shipped Linux .so files to macOS
    f = one(diagnose(apple_silicon(), "arch_not_mach_o_linux_library.txt"), "log.arch-mismatch")
    assert f.title.startswith("Not a macOS binary: ")
    assert f.evidence["library"].endswith("/index_shuffle_module.so") and "binary_arch" not in f.evidence
    assert "the package that installed it (grain) shipped a build for another system" in f.remediation.text
    assert commands(f).startswith("file ") and "--force-reinstall --no-cache-dir -- grain" in commands(f)


def test_avx_and_illegal_instruction_in_one_log_lead_with_the_avx_message(tmp_path):
    text = ((LOGS / "avx_qemu_docker.txt").read_text(encoding="utf-8") + "\n"
            + (LOGS / "illegal_instruction_4.txt").read_text(encoding="utf-8"))
    path = tmp_path / "import.log"
    path.write_text(text, encoding="utf-8")
    s = snap(apple_silicon(**ROSETTA))
    s.log = keep.read(path, identity=WHO)
    report = check.report(s)
    # the AVX message under QEMU tells the container's story and explains QEMU's line
    assert [f.code for f in report.root_causes()] == ["log.avx-missing"]
    assert [f.code for f in report.consequences(report.diagnosis())] == ["log.illegal-instruction", "log.qemu-emulation"]


def test_a_linker_that_skipped_a_library_of_the_other_architecture_is_the_mismatch_not_missing_symbols():
    # tensorflow/build#82: a cgo build as x86_64 on an M1, linking an arm64 libtensorflow
    found = {f.code: f for f in LogRules("log_cpu", "log_libraries").diagnose(apple_silicon(), "ld_ignoring_file_other_arch.txt")}
    f = found["log.arch-mismatch"]
    assert f.evidence["binary_arch"] == "arm64" and f.evidence["needed"] == "x86_64"
    assert f.title.startswith("Architecture mismatch: the linker skipped /usr/local/lib/libtensorflow.so: it is "
                              "built for arm64, the build is for x86_64")
    assert f.remediation.commands == ("file /usr/local/lib/libtensorflow.so",)
    assert "log.symbol-not-found" not in found  # the undefined symbols are the skipped library's


def test_windows_status_illegal_instruction_in_a_dll_load_is_the_cpu_without_avx():
    # tensorflow/tensorflow#35409: Python 3.5's "DLL load failed with error code -1073741795"
    # (0xC000001D, STATUS_ILLEGAL_INSTRUCTION) loading TensorFlow's .pyd on Windows
    f = one(diagnose(linux_cpu(host={"system": "Windows", "cpu_flags": []}), "windows_dll_illegal_instruction.txt"),
            "log.illegal-instruction")
    assert f.severity is Severity.ERROR and "lacks an instruction the TensorFlow build needs (AVX)" in f.title


def _reported(**host) -> dict:
    """A snapshot built from a report that states only these host facts."""
    return {"schema_version": 1, "target": {"python": "python3", "ok": True}, "host": host, "unknown": ["packages"]}


@pytest.mark.parametrize(("host", "flag_command"), [
    ({"system": "Linux", "hw_arm64": False, "chip": "Intel Core i3"}, "/proc/cpuinfo"),
    ({"system": "Darwin", "hw_arm64": False, "macos_version": "10.12.5"}, "machdep.cpu.features"),
])
def test_an_illegal_instruction_on_an_x86_cpu_of_its_own_is_tensorflows_avx(host, flag_command):
    """TensorFlow's install guide: "Starting with TensorFlow 1.6, binaries use AVX instructions which
    may not run on older CPUs". Where the report's chip or macOS says the CPU is x86 and runs its
    own code (no Rosetta, no emulator), the instruction missing is AVX: log.avx-missing, which
    explains the crash."""
    findings = diagnose(_reported(**host), "illegal_instruction_4.txt")
    f = one(findings, "log.avx-missing")
    assert f.severity is Severity.ERROR and "x86 CPU of its own" in f.title and "AVX" in f.title
    assert flag_command in commands(f)
    assert one(findings, "log.illegal-instruction")  # the crash itself, which avx-missing explains


def test_windows_illegal_instruction_importing_tensorflow_is_avx():
    # tensorflow/tensorflow#35409: Windows' STATUS_ILLEGAL_INSTRUCTION; TensorFlow on Windows is x86_64 only
    f = one(diagnose(_reported(system="Windows"), "windows_dll_illegal_instruction.txt"), "log.avx-missing")
    assert "x86 CPU of its own" in f.title and f.remediation.commands == ()


@pytest.mark.parametrize("host", [
    {"system": "Linux"},  # an ARM board is Linux too: the chip is unknown
    {"system": "Linux", "hw_arm64": False, "container": "docker"},  # a container: maybe emulated
    {"system": "Darwin", "hw_arm64": True, "chip": "Apple M1"},  # Rosetta's story
])
def test_an_illegal_instruction_where_the_cpu_is_not_known_to_run_its_own_x86_code_is_not_avx(host):
    assert not [f for f in diagnose(_reported(**host), "illegal_instruction_4.txt") if f.code == "log.avx-missing"]


def test_an_illegal_instruction_of_another_program_on_an_x86_cpu_is_not_tensorflows_avx(tmp_path):
    s = snap(_reported(system="Linux", hw_arm64=False, chip="Intel Core i5"))
    (tmp_path / "posted.md").write_text("zsh: illegal hardware instruction  ./video_tool --scan\n", encoding="utf-8")
    s.log = keep.read(tmp_path / "posted.md", identity=WHO)
    assert [f.code for f in check.run(s) if f.code.startswith("log.")] == ["log.illegal-instruction"]


def test_windows_refusing_tensorflows_native_module_at_start_up_is_avx_or_the_runtime():
    """tensorflow/tensorflow#39855: "DLL load failed while importing _pywrap_tensorflow_internal: A
    dynamic link library (DLL) initialization routine failed" (ERROR_DLL_INIT_FAILED), which
    TensorFlow's maintainers answer with its AVX requirement (tensorflow/tensorflow#39092)."""
    f = one(diagnose(_reported(system="Windows"), "windows_dll_init_failed_pywrap.txt"), "log.avx-missing")
    assert "DLL initialization routine failed" in f.title and "AVX" in f.title
    assert "py-cpuinfo" in commands(f) and "Visual C++ Redistributable" in f.remediation.text


@pytest.mark.parametrize(("text", "read"), [
    ("ImportError: DLL load failed: A dynamic link library (DLL) initialization routine failed.\n\n"
     "Failed to load the native TensorFlow runtime.\n", True),  # Python before 3.8 names no module
    ("ImportError: DLL load failed while importing _multiarray_umath: A dynamic link library (DLL) "
     "initialization routine failed.\n", False),  # NumPy's module: another story
])
def test_a_dll_that_failed_its_start_up_is_tensorflows_only_where_it_is_its_native_module(tmp_path, text, read):
    s = snap(_reported(system="Windows"))
    (tmp_path / "posted.md").write_text(text, encoding="utf-8")
    s.log = keep.read(tmp_path / "posted.md", identity=WHO)
    assert ("log.avx-missing" in {f.code for f in check.run(s)}) is read
