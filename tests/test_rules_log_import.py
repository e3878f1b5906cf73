"""checks/log_import.py: import errors from real public threads (tests/data/logs/, sources in
SOURCES.json), each diagnosed with the facts that change the answer: translated or native, the
installed TensorFlow/tensorflow-metal pair, TensorFlow's NumPy and protobuf pins, the plugins
installed, the system."""

from __future__ import annotations

from log_cases import ARM, LOGS, WHO, LogRules, commands, one
from snapshots import _pkg, apple_silicon, linux_cpu, snap

from tfdoctor.logtext import keep

check = LogRules("log_import")
diagnose = check.diagnose
ROSETTA = {"python": {"process_arch": "x86_64", "translated": True}}


def pair(tf: str, metal: str | None, *extra: dict) -> list[dict]:
    packages = [_pkg("tensorflow", tf, ARM)] + list(extra)
    return packages + ([_pkg("tensorflow-metal", metal, ARM)] if metal else [])


# --- the wrong CPU -----------------------------------------------------------------------------------


def test_illegal_instruction_under_rosetta():
    f = one(diagnose(apple_silicon(**ROSETTA), "illegal_instruction_4.txt"), "log.illegal-instruction")
    assert "x86_64 under Rosetta 2" in f.title and f.evidence["translated"] is True
    assert "arch -arm64" in commands(f)


def test_illegal_instruction_seen_from_a_native_python_came_from_another_process():
    f = one(diagnose(apple_silicon(), "zsh_illegal_hardware_instruction.txt"), "log.illegal-instruction")
    assert "runs natively as arm64" in f.title and "which -a python3" in commands(f)


def test_fatal_python_illegal_instruction_under_rosetta():
    f = one(diagnose(apple_silicon(**ROSETTA), "fatal_python_illegal_instruction.txt"), "log.illegal-instruction")
    assert "Rosetta 2" in f.title


def test_avx_missing_in_an_emulated_container():
    data = linux_cpu(host={"container": "docker", "cpu_flags": ["sse4_2"]})
    f = one(diagnose(data, "avx_qemu_docker.txt"), "log.avx-missing")
    assert f.evidence["log_emulator"] == "qemu" and "--platform linux/arm64" in commands(f)


def test_illegal_instruction_on_a_cpu_with_avx_came_from_elsewhere():
    f = one(diagnose(linux_cpu(), "illegal_instruction_4.txt"), "log.illegal-instruction")
    assert "has AVX" in f.title and f.evidence["cpu_flags_avx"] is True


def test_avx_missing_under_rosetta():
    f = one(diagnose(apple_silicon(**ROSETTA), "avx_qemu_docker.txt"), "log.avx-missing")
    assert "Rosetta 2" in f.title


# --- plugins and libraries ---------------------------------------------------------------------------


def test_metal_plugin_symbol_with_a_known_broken_pair_names_the_pair_that_loads():
    # tensorflow/text#654 text; tensorflow 2.18.0 + tensorflow-metal 1.1.0 is known-broken
    data = apple_silicon(packages=pair("2.18.0", "1.1.0"))
    f = one(diagnose(data, "metal_plugin_symbol_assign_update.txt"), "log.symbol-not-found-plugin")
    assert f.evidence["log_symbol"] == "_TF_AssignUpdateVariable" and f.evidence["pair_status"] == "known-broken"
    assert "tensorflow==2.18.1" in commands(f) and "tensorflow-metal==1.2.0" in commands(f)


def test_metal_plugin_symbol_with_a_working_pair_came_from_another_environment():
    f = one(diagnose(apple_silicon(), "metal_plugin_flat_namespace.txt"), "log.symbol-not-found-plugin")
    assert f.evidence["pair_status"] == "known-working" and "came from another pair" in f.title


def test_metal_plugin_symbol_without_tensorflow_metal_here():
    data = apple_silicon(packages=pair("2.19.1", None), plugins=[])
    f = one(diagnose(data, "metal_plugin_flat_namespace.txt"), "log.symbol-not-found-plugin")
    assert "no tensorflow-metal" in f.title


def test_a_custom_op_built_for_another_tensorflow():
    # tensorflow/tensorflow#22432: tf_nndistance_so.so, the user's own op
    f = one(diagnose(linux_cpu(), "custom_op_undefined_symbol.txt"), "log.symbol-not-found")
    assert "rebuild it against this TensorFlow" in f.title and "get_compile_flags" in commands(f)


def test_x86_64_binary_imported_by_a_native_arm64_python():
    f = one(diagnose(apple_silicon(), "arch_incompatible_pywrap.txt"), "log.arch-mismatch")
    assert f.evidence["binary_arch"] == "x86_64" and "--force-reinstall --no-cache-dir tensorflow" in commands(f)


def test_wrong_architecture_under_rosetta():
    f = one(diagnose(apple_silicon(**ROSETTA), "arch_wrong_architecture.txt"), "log.arch-mismatch")
    assert "Rosetta 2" in f.title


def test_metal_registered_twice_with_both_metal_plugins_installed():
    data = apple_silicon(packages=pair("2.19.1", "1.2.0", _pkg("tensorflow-metal-plugin", "0.4.1", ARM)))
    f = one(diagnose(data, "metal_registered_twice.txt"), "log.plugin-registered-twice")
    assert f.evidence["log_platform"] == "METAL"
    assert "uninstall -y tensorflow-metal tensorflow-metal-plugin" in commands(f)


def test_directml_registered_twice_names_its_platform():
    f = one(diagnose(linux_cpu(), "directml_registered_twice.txt"), "log.plugin-registered-twice")
    assert "Platform DML registered twice" in f.title


def test_registered_twice_through_the_environment_variable():
    data = apple_silicon(env={"TF_PLUGGABLE_DEVICE_LIBRARY_PATH": "/opt/metal/libmetal_plugin.dylib"})
    f = one(diagnose(data, "metal_registered_twice.txt"), "log.plugin-registered-twice")
    assert commands(f) == "unset TF_PLUGGABLE_DEVICE_LIBRARY_PATH"


# --- NumPy and protobuf --------------------------------------------------------------------------------


def test_numpy_2_with_tensorflow_2_15_needs_numpy_1():
    data = apple_silicon(packages=[_pkg("tensorflow", "2.15.0", ARM, ["numpy<2.0.0,>=1.23.5"]),
                                   _pkg("numpy", "2.0.0", ARM)])
    f = one(diagnose(data, "numpy2_tensorflow_import.txt"), "log.numpy-abi")
    assert "built for NumPy 1.x" in f.title and "numpy<2.0.0,>=1.23.5" in commands(f)


def test_numpy_2_with_tensorflow_2_19_blames_another_module():
    f = one(diagnose(apple_silicon(), "numpy2_array_api_tf_session.txt"), "log.numpy-abi")
    assert "another compiled module" in f.title


def test_numpy_c_api_too_old():
    data = apple_silicon(packages=[_pkg("tensorflow", "2.19.1", ARM, ["numpy<2.2.0,>=1.26.0"]),
                                   _pkg("numpy", "1.26.0", ARM)])
    for name in ("numpy_api_version_0xe.txt", "numpy_api_0x10_m1_notebook.txt"):
        f = one(diagnose(data, name), "log.numpy-abi")
        assert "newer NumPy C API" in f.title and "--upgrade 'numpy<2.2.0,>=1.26.0'" in commands(f)


def test_protobuf_4_with_tensorflow_macos_2_9():
    data = apple_silicon(python={"version": "3.9.13"},
                         packages=[_pkg("tensorflow-macos", "2.9.0", ["cp39-cp39-macosx_11_0_arm64"]),
                                   _pkg("protobuf", "4.21.1", ["cp37-abi3-macosx_10_9_universal2"])])
    f = one(diagnose(data, "protobuf_descriptors.txt"), "log.protobuf-descriptors")
    assert f.evidence["protobuf"] == "4.21.1" and "protobuf==3.20.3" in commands(f)


def test_protobuf_fatal_with_a_broken_metal_pair_includes_the_pair():
    data = apple_silicon(packages=pair("2.18.0", "1.1.0"))
    f = one(diagnose(data, "protobuf_fatal_tf216.txt"), "log.protobuf-fatal")
    assert f.evidence["log_check"] == "target + size == res" and "tensorflow-metal==1.2.0" in commands(f)


# --- no GPU --------------------------------------------------------------------------------------------


def test_empty_gpu_list_without_tensorflow_metal_installs_the_pair():
    data = apple_silicon(packages=pair("2.19.1", None), plugins=[])
    f = one(diagnose(data, "gpu_list_empty_tf215.txt"), "log.no-gpu-listed")
    assert "tensorflow-metal is not installed" in f.title and "tensorflow-metal==1.2.0" in commands(f)


def test_empty_gpu_list_under_rosetta():
    f = one(diagnose(apple_silicon(**ROSETTA), "gpu_list_empty_tf215.txt"), "log.no-gpu-listed")
    assert "Rosetta 2" in f.title


def test_empty_gpu_list_on_linux_is_a_warning():
    f = one(diagnose(linux_cpu(), "gpu_list_empty_tf215.txt"), "log.no-gpu-listed")
    assert f.severity.value == "warning" and "macOS only" in f.title


def test_avx_and_illegal_instruction_in_one_log_lead_with_the_avx_message(tmp_path):
    text = ((LOGS / "avx_qemu_docker.txt").read_text(encoding="utf-8") + "\n"
            + (LOGS / "illegal_instruction_4.txt").read_text(encoding="utf-8"))
    path = tmp_path / "import.log"
    path.write_text(text, encoding="utf-8")
    s = snap(apple_silicon(**ROSETTA))
    s.log = keep.read(path, identity=WHO)
    report = check.report(s)
    assert [f.code for f in report.root_causes()] == ["log.avx-missing"]
    assert [f.code for f in report.consequences(report.diagnosis())] == ["log.illegal-instruction"]


def test_a_module_built_for_a_newer_numpys_structs():
    # tensorflow/tensorflow#98406: Cython's check, dtype of 96 bytes expected, 88 found
    f = one(diagnose(apple_silicon(), "numpy_dtype_size_changed.txt"), "log.numpy-abi")
    assert "newer NumPy (numpy.dtype of 96 bytes, not 88)" in f.title and "--upgrade" in commands(f)


def test_the_ufunc_table_of_numpy_1_headers_is_numpys_abi_too():
    # numpy 1.x's generated __ufunc_api.h prints this beside _ARRAY_API (numpy's own template)
    from tfdoctor.logtext.catalog import recognise

    assert "log.numpy-abi" in {m.code for m in recognise("AttributeError: _UFUNC_API not found")}


def test_numpy_2s_renamed_core_is_read_from_the_runtime_childs_stderr():
    # numpy 2's headers: "numpy._core.multiarray failed to import" (numpy.core before 2.0)
    from tfdoctor.logtext import stderr

    kinds = [e.kind for e in stderr.parse("ImportError: numpy._core.multiarray failed to import").events]
    assert kinds == ["numpy-multiarray"]
