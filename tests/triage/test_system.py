"""tfdoctor.triage.read_system and read_tflog: what sw_vers, uname -a, sysctl, file, lipo,
Python's platform.platform(), Docker, TensorFlow, tensorflow-metal and dyld print about the
machine and the process, wherever in a report it was pasted."""

from __future__ import annotations

import pytest

from tfdoctor.triage.facts import read_report
from tfdoctor.triage.snapshot import to_snapshot


def _facts(text: str) -> set[tuple[str, str, str, str]]:
    return {(f.name, f.value, f.how, f.source) for f in read_report(text).facts}


def test_sw_vers_of_an_old_sdk_process_is_the_reported_version():
    got = _facts("ProductName:\tMac OS X\nProductVersion:\t10.16\nBuildVersion:\t20G95\n")
    assert ("macos_version_reported", "10.16", "read", "sw_vers") in got
    assert not [f for f in got if f[0] == "macos_version"]


def test_system_profiler_as_about_this_mac_reports_paste_it():
    # tensorflow/tensorflow issue template's "System Software Overview" (OS X 10.7.5, build 11G63)
    old = _facts("Software:\n    System Software Overview:\n      System Version: Mac OS X 10.7.5 (11G63)\n"
                 "      Kernel Version: Darwin 11.4.2\n")
    assert {("macos_version", "10.7.5", "read", "system_profiler"), ("os", "Darwin", "read", "system_profiler")} <= old
    new = _facts("Hardware Overview:\n  Chip: Apple M1 Pro\nSoftware:\n  System Version: macOS 13.4 (22F66)\n"
                 "  Kernel Version: Darwin 22.5.0\n")
    assert {("chip", "Apple M1 Pro", "read", "system_profiler"), ("macos_version", "13.4", "read", "system_profiler"),
            ("macos_version", "13", "inferred", "system_profiler")} <= new


def test_uname_of_an_intel_mac():
    got = _facts("Darwin imac.local 21.6.0 Darwin Kernel Version 21.6.0: Mon Aug 22 20:17:10 PDT 2022; "
                 "root:xnu-8020.140.49~2/RELEASE_X86_64 x86_64\n")
    assert {("hw_arm64", "false", "read", "uname -a"), ("shell_arch", "x86_64", "read", "uname -a"),
            ("macos_version", "12", "inferred", "uname -a")} <= got
    assert not [f for f in got if f[0] == "translated"]


@pytest.mark.parametrize(("line", "hw", "shell"), [
    ("hw.optional.arm64: 1", "true", None),
    ("hw.optional.arm64: 0", "false", None),
    ("sysctl.proc_translated: 0", "true", "arm64"),
])
def test_sysctl_flags(line, hw, shell):
    got = _facts(line)
    assert ("hw_arm64", hw, "read", "sysctl") in got
    assert (shell is None) or ("shell_arch", shell, "read", "sysctl") in got


def test_a_virtualapple_cpu_is_rosetta_on_apple_silicon():
    got = _facts("machdep.cpu.brand_string: VirtualApple @ 2.50GHz processor\n")
    assert ("hw_arm64", "true", "read", "sysctl") in got
    assert not [f for f in got if f[0] == "chip"]


def test_file_on_a_universal_python_and_on_a_library():
    universal = ("/Library/Frameworks/Python.framework/Versions/3.11/bin/python3.11: Mach-O universal binary with 2 "
                 "architectures: [x86_64:Mach-O 64-bit executable x86_64] [arm64:Mach-O 64-bit executable arm64]\n")
    got = _facts(universal)
    assert ("python_binary_archs", "x86_64 arm64", "read", "file") in got
    assert ("env_manager", "python.org", "inferred", "path") in got
    assert not [f for f in got if f[0] == "python_arch"]  # universal: either
    library = "_pywrap_tensorflow_internal.so: Mach-O 64-bit bundle x86_64\n"
    assert not [f for f in _facts(library) if f[0] == "python_binary_archs"]


def test_lipo_info():
    got = _facts("Architectures in the fat file: /usr/bin/python3 are: x86_64 arm64e\n"
                 "Non-fat file: /usr/local/bin/python3.9 is architecture: x86_64\n")
    assert ("python_binary_archs", "x86_64 arm64", "read", "lipo") in got
    assert ("python_binary_archs", "x86_64", "read", "lipo") in got


@pytest.mark.parametrize(("printed", "expected"), [
    ("macOS-13.2-arm64-arm-64bit", {("python_arch", "arm64"), ("macos_version", "13.2"), ("os", "Darwin")}),
    ("macOS-10.16-x86_64-i386-64bit", {("python_arch", "x86_64"), ("macos_version_reported", "10.16")}),
    ("macOS-12.6-x86_64-i386-64bit", {("python_arch", "x86_64"), ("macos_version", "12.6")}),
    ("Linux-6.5.11-linuxkit-aarch64-with-glibc2.36", {("python_arch", "arm64"), ("os", "Linux"), ("container", "docker")}),
    ("Windows-10-10.0.19045-SP0", {("os", "Windows")}),
])
def test_platform_strings(printed, expected):
    got = {(f.name, f.value) for f in read_report(f"platform: {printed}").facts
           if f.source == "platform.platform()"}
    assert expected <= got


def test_python_before_38_printed_the_kernel_release():
    got = _facts("Darwin-21.6.0-arm64-arm-64bit")
    assert ("macos_version", "12", "inferred", "platform.platform()") in got
    assert ("python_arch", "arm64", "read", "platform.platform()") in got


def test_tensorflow_metal_and_tensorflow_logs():
    got = _facts("2024-07-01 21:13:32.032200: I metal_plugin/src/device/metal_device.cc:1154] Metal device set to: Apple M3\n"
                 "I tensorflow/core/platform/cpu_feature_guard.cc:142] Your CPU supports instructions that this TensorFlow binary was not compiled to use: AVX2 FMA\n")
    assert ("chip", "Apple M3", "read", "tensorflow-metal log") in got
    assert ("python_arch", "x86_64", "inferred", "tensorflow log") in got
    assert ("hw_arm64", "false", "read", "tensorflow-metal log") in _facts("Metal device set to: AMD Radeon Pro 5500M\n")


def test_the_gpu_the_plugin_opened_outranks_a_chip_a_sentence_names():
    """A README for an M1 Max and an Intel MacBook Pro with an AMD 555X, then the Intel one's log:
    the printed device says which Mac the log and its x86_64 Python come from."""
    from tfdoctor.triage.facts import read_report
    from tfdoctor.triage.snapshot import to_snapshot

    report = read_report("Install it on:\n* M1 Max Macbook pro 2021\n* Intel Macbook pro 2019 with AMD 555X\n\n"
                         "Metal device set to: AMD Radeon Pro 555X\n")
    assert to_snapshot(report).host.hw_arm64 is False


def test_qemus_own_line_says_the_process_ran_in_a_container_not_under_rosetta():
    """QEMU's user-mode emulator (linux-user/signal.c's "qemu: uncaught target signal %d (%s) - core
    dumped") runs Linux programs only: a Mac M1 whose x86_64 process QEMU ran is a container's
    story, not Rosetta 2's, even where the report never says "docker"."""
    text = ("I use an M1 Mac.\n\nThe TensorFlow library was compiled to use AVX instructions, but these "
            "aren't available on your machine.\nqemu: uncaught target signal 6 (Aborted) - core dumped\n")
    got = _facts(text)
    assert ("container", "qemu-user", "read", "qemu") in got
    assert ("python_arch", "x86_64", "inferred", "tensorflow log") in got
    assert not [f for f in got if f[0] == "translated"]
    assert to_snapshot(read_report(text)).host.container == "qemu-user"
    assert not [f for f in _facts(text.replace("qemu: uncaught", "the uncaught")) if f[0] == "container"]


@pytest.mark.parametrize(("wording", "arch"), [
    ("(mach-o file, but is an incompatible architecture (have (x86_64), need (arm64e)))", "arm64"),
    ("(mach-o file, but is an incompatible architecture (have 'arm64', need 'x86_64'))", "x86_64"),
])
def test_dyld_names_the_process_architecture_it_needs(wording, arch):
    assert ("python_arch", arch, "read", "dyld error") in _facts(f"ImportError: dlopen(x.so, 0x0002): tried: 'x.so' {wording}")


@pytest.mark.parametrize(("listing", "chip", "source"), [
    ("model name\t: Intel(R) Core(TM) i5-2400 CPU @ 3.10GHz", "Intel Core i5", "cpuinfo"),  # /proc/cpuinfo
    ("Model name:            AMD Ryzen 7 3700X 8-Core Processor", "AMD", "cpuinfo"),  # lscpu
    ("          product: Intel(R) Core(TM) i3 CPU       M 330  @ 2.13GHz", "Intel Core i3", "lshw"),  # lshw -class cpu
    ("model name\t: Intel(R) Core(TM)2 Quad CPU    Q9650  @ 3.00GHz", "Intel", "cpuinfo"),  # Core 2: no AVX
    ("model name\t: Intel(R) Celeron(R) CPU  N3050  @ 1.60GHz", "Intel", "cpuinfo"),
])
def test_linux_cpu_listings_name_the_chip_and_so_no_apple_silicon(listing, chip, source):
    got = _facts(listing + "\n")
    assert ("chip", chip, "read", source) in got and ("hw_arm64", "false", "inferred", "chip") in got
    (brand,) = [f[1] for f in got if f[0] == "cpu_brand" and f[3] == source]
    assert "  " not in brand  # /proc/cpuinfo and lshw pad the model name with runs of spaces


def test_lshw_products_that_are_not_a_chip_are_not_a_cpu():
    got = _facts("       product: 8 Series/C220 Series Chipset Family SATA Controller\n"
                 "       product: Radeon Pro 5500M\n")
    assert not [f for f in got if f[0] in ("chip", "cpu_brand", "hw_arm64")]


@pytest.mark.parametrize(("version", "intel"), [("10.12.5", True), ("10.15.7", True), ("11.2", False)])
def test_a_macos_before_11_is_an_intel_mac(version, intel):
    """Apple silicon Macs shipped with macOS 11; an x86_64 Python's "10.16" on 11+ is the reported
    version, another fact, so it says nothing of the chip."""
    got = _facts(f"ProductName:\tmacOS\nProductVersion:\t{version}\n")
    assert (("hw_arm64", "false", "inferred", "macos version") in got) is intel
    reported = _facts("ProductName:\tMac OS X\nProductVersion:\t10.16\n")
    assert not [f for f in reported if f[0] == "hw_arm64"]


@pytest.mark.parametrize(("listing", "x86"), [
    ("flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr "
     "sse sse2 ht tm pbe syscall nx lm constant_tsc", True),  # /proc/cpuinfo of an x86 CPU (a Core 2: no avx)
    ("Flags:                           fpu vme de pse tsc msr pae mce cx8 apic sep sse sse2 ssse3 avx", True),  # lscpu
    ("Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid", False),  # /proc/cpuinfo of an ARM CPU
    ("Flags:                           fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid", False),  # lscpu on ARM
])
def test_an_x86_cpus_flags_say_it_is_no_apple_silicon(listing, x86):
    got = _facts(listing + "\n")
    assert (("hw_arm64", "false", "read", "cpuinfo") in got) is x86
    assert not [f for f in got if f[0] == "hw_arm64" and f[1] == "true"]


def test_tensorflows_own_cpu_message_is_the_logs_evidence_not_a_fact_of_the_python():
    """On an M1, TensorFlow's AVX guard ("compiled to use AVX instructions, but these aren't
    available", cpu_feature_guard.cc) shows an x86_64 process; it is the message log.avx-missing
    reads, and that finding tells the Rosetta story and its arm64 fix. The snapshot does not also
    take the message as what the Python runs as (no arch.rosetta concluded from the same line);
    what the report shows of the Python itself (platform.machine() printed) does settle it."""
    from tfdoctor.triage.outcome import triage_text

    guard = "The TensorFlow library was compiled to use AVX instructions, but these aren't available on your machine.\n"
    only = triage_text("report.md", ("I am on a mac m1 using a python3.10 venv.\n\n```\n" + guard + "```\n").encode())
    assert "python-arch" in only.report.snapshot.unknown
    diagnosis = only.report.diagnosis()
    assert diagnosis.code == "log.avx-missing" and "Rosetta 2" in diagnosis.title
    assert "file ''" not in diagnosis.remediation.commands
    assert "arch.rosetta" not in {f.code for f in only.report.problems()}
    printed = triage_text("report.md", ("I am on a mac m1.\n\n```\n>>> platform.machine()\n'x86_64'\n" + guard
                                        + "```\n").encode())
    assert printed.report.diagnosis().code == "arch.rosetta"
