"""checks/log_libraries.py: a library that failed to load, from real public threads
(tests/data/logs/, sources in SOURCES.json): the library the loader names decides whose fault it is
(the Metal plugin, another plugin, a custom op, macOS's own libraries), judged with the installed
pair and what the snapshot knows of it."""

from __future__ import annotations

import pytest

from log_cases import ARM, LOGS, WHO, LogRules, commands, one
from snapshots import _pkg, apple_silicon, linux_cpu, merge, snap

from tfdoctor.logtext import keep

check = LogRules("log_libraries")
diagnose = check.diagnose


def pair(tf: str, metal: str | None, *extra: dict) -> list[dict]:
    packages = [_pkg("tensorflow", tf, ARM)] + list(extra)
    return packages + ([_pkg("tensorflow-metal", metal, ARM)] if metal else [])


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


def test_a_plugin_frame_cut_before_its_reason_names_the_pair_to_install(tmp_path):
    # tensorflow/tensorflow#53309's traceback cut after TensorFlow's plugin-loading frame
    text = (LOGS / "plugin_dir_frame_mps_graph.txt").read_text(encoding="utf-8")
    path = tmp_path / "cut.txt"
    path.write_text(text + "tensorflow.python.fra", encoding="utf-8")

    def found(data):
        s = snap(data)
        s.log = keep.read(path, identity=WHO)
        return one(check.run(s), "log.plugin-load-failed")

    mac = found(apple_silicon(packages=pair("2.18.0", "1.1.0")))  # known-broken: the pair that loads
    assert "tensorflow-metal 1.1.0 is not built for TensorFlow 2.18.0" in mac.title
    assert "tensorflow-metal==1.2.0" in commands(mac)
    linux = found(linux_cpu())  # Intel's or DirectML's plugin in the same folder (tensorflow/tensorflow#58545)
    assert "built for another TensorFlow" in linux.title and "Metal" not in linux.title
    assert not [f for f in check.run(snap(apple_silicon())) if f.code == "log.plugin-load-failed"]


def test_a_custom_op_built_for_another_tensorflow():
    # tensorflow/tensorflow#22432: tf_nndistance_so.so, the user's own op
    f = one(diagnose(linux_cpu(), "custom_op_undefined_symbol.txt"), "log.symbol-not-found")
    assert "rebuild it against this TensorFlow" in f.title and "get_compile_flags" in commands(f)




# --- the library a loader error names decides whose fault it is -------------------------------


def test_a_companion_linking_another_tensorflows_library_name_is_built_for_another_tensorflow(tmp_path):
    """tensorflow/text#97: tensorflow_text's op library cannot load @rpath/libtensorflow_framework.1.dylib
    (TensorFlow 1.x's name) under TensorFlow 2.0: the companion is built for another TensorFlow,
    named with the release of this TensorFlow's minor. The Metal plugin linking a library this
    TensorFlow lacks is the pair's; TensorFlow's own library missing libgomp is neither."""
    with_tf = apple_silicon(packages=[_pkg("tensorflow", "2.15.0", ARM), _pkg("tensorflow-text", "1.15.1", [])])
    f = one(diagnose(with_tf, "library_not_loaded_text_framework1.txt"), "log.symbol-not-found")
    assert f.title.startswith("_constrained_sequence_op.so needs @rpath/libtensorflow_framework.1.dylib")
    assert "install -- 'tensorflow-text~=2.15.0'" in commands(f)
    alone = one(diagnose(apple_silicon(packages=[]), "library_not_loaded_text_framework1.txt"), "log.symbol-not-found")
    assert "tensorflow-text was built for another TensorFlow" in alone.title
    assert "pip show tensorflow tensorflow-text" in commands(alone)
    plugin = snap(apple_silicon())
    plugin.log = keep.from_bytes(b"NotFoundError: dlopen(/Users/u/venv/lib/python3.11/site-packages/tensorflow-plugins/"
                                 b"libmetal_plugin.dylib, 0x0006): Library not loaded: '@rpath/_pywrap_tensorflow_internal.so'\n",
                                 "paste", identity=WHO)
    assert "log.symbol-not-found-plugin" in [x.code for x in check.run(plugin)]
    gomp = snap(apple_silicon())
    gomp.log = keep.from_bytes(b"ImportError: dlopen(/Users/abc/Sites/tfgpu/lib/python3.6/site-packages/tensorflow/python/"
                               b"_pywrap_tensorflow_internal.so, 6): Library not loaded: /usr/local/lib/libgomp.1.dylib\n",
                               "paste", identity=WHO)
    assert not [x for x in check.run(gomp) if x.code.startswith("log.symbol-not-found")]


def test_a_symbol_expected_in_a_system_framework_means_the_macos_is_too_old():
    """dyld says where it expected the symbol: in macOS's own MetalPerformanceShadersGraph, so
    the plugin was built for a newer macOS (12.0, its "Referenced from" line says): not a
    TensorFlow pairing problem (rstudio/tensorflow#493, macOS 11)."""
    findings = diagnose(apple_silicon(host={"macos_version": "11.6"}), "dyld_system_symbol_macos_too_old.txt")
    assert [f.code for f in findings] == ["log.macos-too-old"]
    (f,) = findings
    assert "built for macOS 12.0 or later" in f.title and f.evidence["log_provider_name"] == "MetalPerformanceShadersGraph"
    assert " -m pip " not in commands(f)


def test_the_same_symbol_expected_in_a_flat_namespace_is_still_the_pair():
    """"Expected in: flat namespace" names no system library: TensorFlow's pairing, as before."""
    text = ("NotFoundError: dlopen(/venv/lib/python3.11/site-packages/tensorflow-plugins/libmetal_plugin.dylib, 6): "
            "Symbol not found: _TF_AssignUpdateVariable\n  Referenced from: /venv/lib/python3.11/site-packages/"
            "tensorflow-plugins/libmetal_plugin.dylib\n  Expected in: flat namespace\n")
    s = snap(apple_silicon())
    s.log = keep.from_bytes(text.encode(), "paste", identity=WHO)
    assert [f.code for f in check.run(s)] == ["log.symbol-not-found-plugin"]


def test_a_custom_op_missing_a_symbol_of_macoss_libcxx_is_macos_too_old_not_the_companion():
    """TensorFlow Decision Forests' own warning (tensorflow_decision_forests/tensorflow/ops/
    inference/op_dynamic.py: "Failure to load the inference.so custom c++ tensorflow ops. This
    error is likely caused the version of TensorFlow and TensorFlow Decision Forests are not
    compatible. Full error:{dyld's message}") guesses the pair; dyld's message it carries
    expects the symbol in macOS's libc++, for a library built for 12.3: the OS, not the pair.
    The warning and the traceback's NotFoundError both carry it."""
    dyld = ("dlopen(/venv/lib/python3.10/site-packages/tensorflow_decision_forests/tensorflow/ops/inference/"
            "inference.so, 6): Symbol not found: __ZNKSt3__115basic_stringbufIcNS_11char_traitsIcEENS_9allocatorIcEEE3strEv\n"
            "  Referenced from: /venv/lib/python3.10/site-packages/tensorflow_decision_forests/tensorflow/ops/inference/"
            "inference.so (which was built for Mac OS X 12.3)\n  Expected in: /usr/lib/libc++.1.dylib\n")
    text = ("WARNING:root:Failure to load the inference.so custom c++ tensorflow ops. This error is likely caused "
            "the version of TensorFlow and TensorFlow Decision Forests are not compatible. Full error:" + dyld +
            "\nTraceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
            "tensorflow.python.framework.errors_impl.NotFoundError: " + dyld)
    data = apple_silicon(host={"macos_version": "11.2.3"},
                         packages=pair("2.13.0", None, _pkg("tensorflow-decision-forests", "1.5.0", ARM)))
    s = snap(data)
    s.log = keep.from_bytes(text.encode(), "paste", identity=WHO)
    findings = check.run(s)
    assert [f.code for f in findings] == ["log.macos-too-old"]
    assert "built for macOS 12.3 or later" in findings[0].title


def test_a_class_of_apples_frameworks_missing_is_macos_too_old_without_its_expected_in_line():
    """tensorflow/tensorflow#53309 as posted: macOS 11.6, the plugin 'built for Mac OS X 12.0'
    misses _OBJC_CLASS_$_MPSGraphCompilationDescriptor, and the paste ends before dyld's 'Expected
    in' line. A class of Apple's frameworks is macOS's own, so it is not the TensorFlow pair."""
    findings = diagnose(apple_silicon(host={"macos_version": "11.6"}), "dyld_objc_class_no_expected_in.txt")
    assert [f.code for f in findings] == ["log.macos-too-old"]
    assert "built for macOS 12.0 or later" in findings[0].title


def test_dyld_saying_the_library_was_built_for_a_newer_macos_is_macos_too_old():
    """rstudio/keras3#791: TensorFlow's own library, '(which was built for Mac OS X 10.12)', misses
    _clock_gettime and the paste has no 'Expected in' line. dyld 2 adds that note only when the
    image's minimum macOS is above the running one: the OS is too old, not the TensorFlow pair."""
    findings = diagnose(apple_silicon(host={"macos_version": "10.11.6"}), "dyld_built_for_newer_macos_clock_gettime.txt")
    assert [f.code for f in findings] == ["log.macos-too-old"]
    assert findings[0].title.startswith("macOS 10.11.6 is too old: a library needs _clock_gettime")
    assert "built for macOS 10.12 or later" in findings[0].title


def test_a_function_of_macoss_own_libraries_missing_is_macos_too_old():
    """tensorflow/community#272: TensorFlow's library misses Security.framework's
    _SecKeyCopyExternalRepresentation (macOS 10.12), no 'Expected in' line: Apple's reserved
    prefix names the library, so it is the OS, not a TensorFlow built for another TensorFlow."""
    findings = diagnose(apple_silicon(host={"macos_version": "10.11.6"}), "dyld_security_function_missing.txt")
    assert [f.code for f in findings] == ["log.macos-too-old"] and findings[0].severity.name == "ERROR"


def test_libsystems_stack_probe_missing_is_macos_too_old(tmp_path):
    """Liubsyy/HotSecondsIDEA#25 (macOS 10.13.6): ____chkstk_darwin, the stack probe clang calls in
    code built for macOS 10.15, is libSystem's: no 'Expected in' line is needed to know the OS is
    too old. A paste that joined dyld's lines keeps the version note beside the symbol."""
    findings = diagnose(apple_silicon(host={"macos_version": "10.13.6"}), "dyld_chkstk_darwin_stack_probe.txt")
    assert [f.code for f in findings] == ["log.macos-too-old"] and "____chkstk_darwin" in findings[0].title
    (tmp_path / "posted.txt").write_text("at runtime : dyld: Symbol not found: ____chkstk_darwin (which was "
                                         "built for Mac OS X 10.15)\n", encoding="utf-8")
    s = snap(apple_silicon(host={"macos_version": "10.13.6"}))
    s.log = keep.read(tmp_path / "posted.txt", identity=WHO)
    (finding,) = check.run(s)
    assert finding.code == "log.macos-too-old" and "built for macOS 10.15 or later" in finding.title


def test_a_tensorflow_symbol_stays_the_pair_whatever_dyld_says_of_the_os(tmp_path):
    # dyld's template filled: a custom op missing a TensorFlow C++ symbol, built for a newer macOS too
    text = ("tensorflow.python.framework.errors_impl.NotFoundError: dlopen(/x/site-packages/tensorflow_text/python/ops/"
            "_regex_split_ops.dylib, 6): Symbol not found: __ZN10tensorflow8internal21CheckOpMessageBuilderD1Ev\n  Referenced from: "
            "/x/site-packages/tensorflow_text/python/ops/_regex_split_ops.dylib (which was built for Mac OS X 12.0)\n")
    (tmp_path / "posted.txt").write_text(text, encoding="utf-8")
    s = snap(apple_silicon(host={"macos_version": "11.6"}))
    s.log = keep.read(tmp_path / "posted.txt", identity=WHO)
    assert [f.code for f in check.run(s)] == ["log.symbol-not-found"]


# --- a plugin load failure where the report does not say which plugin is installed -------------

_FRAME_CUT = ("Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
              "  File \"/opt/homebrew/envs/tf/lib/python3.11/site-packages/tensorflow/__init__.py\", "
              "line 437, in <module>\n    _ll.load_library(_plugin_dir)\n"
              "  File \"/opt/homebrew/envs/tf/lib/python3.11/site-packages/tensorflow/python/framework/"
              "load_library.py\", line 151, in load_library\n    py_tf.TF_LoadLibrary(lib)\n"
              "tensorflow.python.fra")
"""TensorFlow's plugin-loading frame (tensorflow/api_template.py), a paste cut before the reason."""


def _reported(tmp_path, text: str, system: str = "Darwin", macos: str | None = None):
    """A report's facts (TensorFlow 2.18.0 named, no listing: which plugin is installed is
    unknown) with `text` as its pasted error, diagnosed by the whole engine."""
    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    data = apple_silicon(packages=[{"name": "tensorflow", "version": "2.18.0"}], python={"site_packages": []})
    data["host"]["system"] = system
    if macos:
        data["host"].update(macos_version=macos, macos_version_reported=macos)
    path = tmp_path / "posted.txt"
    path.write_text(text, encoding="utf-8")
    s = snap(data)
    s.log = keep.read(path, identity=WHO)
    return diagnose(s)


def test_the_plugin_frame_of_a_cut_paste_names_the_plugin_and_the_pair_that_loads(tmp_path):
    """Which tensorflow-metal is installed is unknown (the report names TensorFlow only): the
    tables cannot judge the pair, the log finding names the failure and the pair to install."""
    report = _reported(tmp_path, _FRAME_CUT)
    top = report.diagnosis()
    assert top.code == "log.plugin-load-failed" and top.basis == "observed"
    assert "not built for TensorFlow 2.18.0" in top.title
    assert any("tensorflow-metal==" in c for c in top.remediation.commands)
    assert "compat.tf-metal-mismatch" not in {f.code for f in report.findings}


def test_a_plugin_missing_a_tensorflow_symbol_is_named_by_its_symbol(tmp_path):
    named = _FRAME_CUT.replace("tensorflow.python.fra", (
        "tensorflow.python.framework.errors_impl.NotFoundError: dlopen(/opt/homebrew/envs/tf/lib/python3.11/"
        "site-packages/tensorflow-plugins/libmetal_plugin.dylib, 0x0006): Symbol not found: "
        "__ZN3tsl8internal10LogMessageC1EPKcii\n  Referenced from: <A1B2> /opt/homebrew/envs/tf/lib/"
        "python3.11/site-packages/tensorflow-plugins/libmetal_plugin.dylib\n  Expected in: <C3D4> "
        "/opt/homebrew/envs/tf/lib/python3.11/site-packages/tensorflow/python/_pywrap_tensorflow_internal.so"))
    report = _reported(tmp_path, named)
    top = report.diagnosis()
    assert top.code == "log.symbol-not-found-plugin" and top.evidence["log_symbol"].startswith("__ZN3tsl")
    assert "log.plugin-load-failed" not in {f.code for f in report.findings}  # the reason is shown


def test_the_plugin_frame_gives_way_to_the_reason_the_paste_shows(tmp_path):
    # tensorflow/tensorflow#53309's shape: the frame, then a symbol of macOS's own frameworks
    text = _FRAME_CUT.replace("tensorflow.python.fra", (LOGS / "dyld_system_symbol_macos_too_old.txt").read_text())
    report = _reported(tmp_path, text, macos="11.6")
    assert report.diagnosis().code == "log.macos-too-old"
    assert not {"compat.tf-metal-mismatch", "log.plugin-load-failed"} & {f.code for f in report.findings}


def test_dyld_s_note_told_in_words_is_the_macos_floor_the_report_says():
    """A reporter telling dyld's '(which was built for Mac OS X 10.12)' in words ("the `.so` was
    built for macOS 10.12") on macOS 10.11.6: the report's own floor, above this macOS. The same
    words where the Mac runs a newer macOS came from elsewhere (information)."""
    words = (b"I tried tensorflow 1.9 to 1.13 with pip; import tensorflow failed because the `.so` was built "
             b"for macOS 10.12.\n")
    old = snap(merge(apple_silicon(), {"host": {"hw_arm64": False, "macos_version": "10.11.6"}}))
    old.log = keep.from_bytes(words, "paste", identity=WHO)
    (f,) = [f for f in check.run(old) if f.code == "log.macos-too-old"]
    assert f.severity.value == "error" and f.title == "macOS 10.11.6 is too old: the report says it needs macOS 10.12 or later"
    newer = snap(apple_silicon(host={"macos_version": "13.0"}))
    newer.log = keep.from_bytes(words, "paste", identity=WHO)
    (g,) = [f for f in check.run(newer) if f.code == "log.macos-too-old"]
    assert g.severity.value == "info"


# --- the NVIDIA stack of a GPU build -----------------------------------------------------------------


def linux_gpu_build(version: str) -> dict:
    return linux_cpu(packages=[_pkg("tensorflow-gpu" if version < "2.1" else "tensorflow", version,
                                    ["cp35-cp35m-manylinux1_x86_64"])])


def test_an_import_failing_on_a_cuda_library_names_the_cuda_release_the_build_wants():
    # tensorflow/tensorflow#14280: tensorflow-gpu 1.4 links libcublas.so.8.0
    f = one(diagnose(linux_gpu_build("1.4.0"), "cuda_library_import_cublas.txt"), "log.gpu-libraries")
    assert f.severity.value == "error" and f.evidence["libraries"] == ["libcublas.so.8.0"]
    assert "wants CUDA 8.0" in f.title and "LD_LIBRARY_PATH" in f.title
    assert not f.remediation.commands  # the pip extra would be another TensorFlow, not this build's CUDA


def test_the_pip_extra_is_offered_where_the_tensorflow_is_of_its_era():
    f = one(diagnose(linux_cpu(), "gpu_found_libraries_missing.txt"), "log.gpu-libraries")  # TensorFlow 2.19.1
    assert f.severity.value == "warning" and "skipped it" in f.title
    assert "tensorflow[and-cuda]" in commands(f)


def test_the_windows_self_check_names_the_dll_and_path():
    # tensorflow/tensorflow#31701: "Could not find 'cudart64_100.dll'. TensorFlow requires that this DLL ..."
    data = linux_cpu(host={"system": "Windows"}, packages=[])
    f = one(diagnose(data, "cuda_dll_self_check_cudart.txt"), "log.gpu-libraries")
    assert f.evidence["libraries"] == ["cudart64_100.dll"] and "wants CUDA 10.0" in f.title
    assert "on PATH" in f.title and not f.remediation.commands


def test_an_empty_driver_library_is_a_container_started_without_the_gpu():
    # Ceruleanacg/Personae#14: libcuda.so.1 "file too short", the image's placeholder for the host's driver
    f = one(diagnose(linux_cpu(packages=[]), "cuda_driver_placeholder_docker.txt"), "log.gpu-libraries")
    assert "--gpus all" in f.title and commands(f) == "nvidia-smi"


def test_libraries_named_beside_the_skip_give_each_release():
    # JdeRobot/BehaviorMetrics#385: libcusolver.so.11 and libcudnn.so.8, then "Cannot dlopen some GPU libraries"
    f = one(diagnose(linux_cpu(packages=[]), "nvidia_libraries_not_opened.txt"), "log.gpu-libraries")
    assert f.evidence["libraries"] == ["libcusolver.so.11", "libcudnn.so.8"]
    assert "wants CUDA 11.1-12.x and cuDNN 8" in f.title and f.severity.value == "warning"


def test_cudnn_that_tensorflow_0x_could_not_load():
    f = one(diagnose(linux_cpu(packages=[]), "cudnn_dso_unable_to_load.txt"), "log.gpu-libraries")
    assert "could not load cuDNN" in f.title and f.severity.value == "warning"


def test_a_macos_gpu_build_wants_its_cuda_dylib_on_dyld_library_path():
    # tensorflow/tensorflow#6370: TensorFlow 0.12's macOS GPU build links @rpath/libcudart.8.0.dylib
    f = one(diagnose(linux_cpu(host={"system": "Darwin"}, packages=[]), "cuda_dylib_not_loaded.txt"),
            "log.gpu-libraries")
    assert "wants CUDA 8.0" in f.title and "DYLD_LIBRARY_PATH" in f.title


def _text_findings(tmp_path, text: str) -> list:
    path = tmp_path / "posted.txt"
    path.write_text(text, encoding="utf-8")
    s = snap(linux_cpu())
    s.log = keep.read(path, identity=WHO)
    return [f for f in check.run(s) if f.code == "log.gpu-libraries"]


_NOT_OPENED = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
               "'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file "
               "or directory\n")


def test_a_library_not_opened_alone_is_what_every_machine_without_a_gpu_prints(tmp_path):
    assert not _text_findings(tmp_path, _NOT_OPENED + "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] "
                              "Ignore above cudart dlerror if you do not have a GPU set up on your machine.\n")
    assert not _text_findings(tmp_path, "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not "
                              "load dynamic library 'libnvinfer.so.7'\nW tensorflow/compiler/tf2tensorrt/utils/"
                              "py_utils.cc:38] Cannot dlopen some TensorRT libraries.\n")


def test_a_library_not_opened_beside_an_empty_gpu_list_is_why(tmp_path):
    found = _text_findings(tmp_path, _NOT_OPENED + ">>> tf.config.list_physical_devices('GPU')\n[]\n")
    assert len(found) == 1 and found[0].severity.value == "warning" and "libcudart.so.11.0" in found[0].title


def test_a_cudnn_older_than_the_one_tensorflow_was_compiled_with_names_both_releases():
    # tensorflow/tensorflow#33666: "Loaded runtime CuDNN library: 7.5.0 but source was compiled with: 7.6.0"
    f = one(diagnose(linux_gpu_build("2.0.0"), "cudnn_version_mismatch_conv.txt"), "log.gpu-libraries")
    assert f.severity.value == "error" and (f.evidence["log_loaded"], f.evidence["log_wants"]) == ("7.5.0", "7.6.0")
    assert "compiled with cuDNN 7.6.0 but loaded cuDNN 7.5.0" in f.title
    assert "cuDNN 7.6 (or a later 7.x)" in f.title and "LD_LIBRARY_PATH" in f.title
    assert not f.remediation.commands  # TensorFlow 2.0's CUDA comes from no pip extra


def test_tensorflow_0x_prints_cudnn_s_version_numbers():
    # tensorflow/tensorflow#4760: "Loaded runtime CuDNN library: 5005 (compatibility version 5000) but
    # source was compiled with 5103 (compatibility version 5100)"
    f = one(diagnose(linux_cpu(packages=[]), "cudnn_version_mismatch_legacy.txt"), "log.gpu-libraries")
    assert "compiled with cuDNN 5.1.3 but loaded cuDNN 5.0.5" in f.title
    assert "make cuDNN 5.1 the one loaded" in f.title  # before cuDNN 7 a later minor does not do


def test_the_mismatch_is_why_convolutions_found_no_dnn_library():
    # stardist/stardist#228: the mismatch line, then "UNIMPLEMENTED: DNN library is not found."
    f = one(diagnose(linux_gpu_build("2.12.0"), "dnn_library_not_found_beside_mismatch.txt"), "log.gpu-libraries")
    assert "compiled with cuDNN 8.6.0 but loaded cuDNN 8.4.0" in f.title and f.evidence["line"] == 14  # the mismatch line


def test_no_dnn_library_alone_is_a_cudnn_that_cannot_be_used():
    # apapiu/guided-diffusion-keras#8: TensorFlow 2.8 with cuDNN 8.1.1, "DNN library is not found."
    f = one(diagnose(linux_gpu_build("2.8.0"), "dnn_library_not_found.txt"), "log.gpu-libraries")
    assert f.severity.value == "error" and "no usable cuDNN" in f.title and not f.remediation.commands
    newer = one(diagnose(linux_cpu(), "dnn_library_not_found.txt"), "log.gpu-libraries")  # TensorFlow 2.19.1
    assert "tensorflow[and-cuda]" in commands(newer)


def test_a_driver_older_than_the_cuda_runtime_is_updated_not_installed():
    # liuwei16/ALFNet#4: "cudaGetDevice() failed. Status: CUDA driver version is insufficient for CUDA runtime version"
    f = one(diagnose(linux_gpu_build("1.10.0"), "cuda_driver_insufficient_status.txt"), "log.gpu-libraries")
    assert f.severity.value == "error" and "driver is older than the CUDA runtime" in f.title
    assert "update the NVIDIA driver" in f.title and commands(f) == "nvidia-smi"
    docker = one(diagnose(merge(linux_gpu_build("1.10.0"), {"host": {"container": "docker"}}),
                          "cuda_driver_insufficient_status.txt"), "log.gpu-libraries")
    assert "update the host's NVIDIA driver" in docker.title


def test_the_stream_executors_lines_in_a_text_that_never_names_tensorflow_are_another_frameworks(tmp_path):
    jax = ("E0508 03:34:06.237713 14701 cuda_dnn.cc:522] Loaded runtime CuDNN library: 9.0.0 but source was "
           "compiled with: 9.1.1. CuDNN library needs to have matching major version and equal or higher minor "
           "version.\njax.errors.JaxRuntimeError: FAILED_PRECONDITION: DNN library initialization failed.\n")
    assert not _text_findings(tmp_path, jax)
    assert _text_findings(tmp_path, jax.replace("jax.errors.JaxRuntimeError", "tensorflow.python.framework.errors_impl.InternalError"))


def _not_opened(text: str) -> list:
    s = snap(linux_cpu(packages=[]))
    s.log = keep.from_bytes(text.encode(), "paste", identity=WHO)
    return check.run(s)


_CUSOLVER_NOT_OPENED = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic "
               "library 'libcusolver.so.10'; dlerror: libcusolver.so.10: cannot open shared object file: "
               "No such file or directory\n")


@pytest.mark.parametrize("machine", [
    "- CUDA/cuDNN version: 11.1 / 8.0.4.30\n- GPU model and memory: RTX 2080 8GB\n",  # tensorflow/tensorflow#43947's template
    "win10\nRTX3070ti\ncuda11.2\ncudnn8.1.0\n",
    "| NVIDIA-SMI 455.23.05    Driver Version: 455.23.05    CUDA Version: 11.1     |\n",
    "LD_LIBRARY_PATH=/usr/local/cuda-11.1/lib64\n",
])
def test_a_library_not_opened_costs_the_gpu_of_a_machine_that_says_it_has_one(machine):
    """'Could not load dynamic library' is what every machine without an NVIDIA GPU prints; a text
    that says its machine has one (a GPU model, a CUDA release, nvidia-smi) lost that GPU. The
    library's name says which CUDA ships it: libcusolver.so.10 is CUDA 10.1-11.0's, not 10's."""
    f = one(_not_opened(machine + _CUSOLVER_NOT_OPENED), "log.gpu-libraries")
    assert f.severity.value == "warning" and "libcusolver.so.10" in f.title
    assert "wants CUDA 10.1-11.0: install a release of that range" in f.title


@pytest.mark.parametrize("machine", [
    "",  # a CPU-only machine, a CI runner
    "- CUDA/cuDNN version: N/A\n- GPU model and memory: N/A\n",
    "I tensorflow/core/common_runtime/gpu/gpu_device.cc] Cuda compute capability 3.0\n",
    "tensorflow/stream_executor/cuda/cuda_driver.cc:269] failed call to cuInit: UNKNOWN ERROR (303)\n",
])
def test_the_same_line_where_no_nvidia_gpu_is_said_is_no_finding(machine):
    assert "log.gpu-libraries" not in {f.code for f in _not_opened(machine + _CUSOLVER_NOT_OPENED)}


@pytest.mark.parametrize("words", [
    "Ofc i have GPU in my Computer\n",
    "I've got an NVIDIA GPU but TensorFlow ignores it.\n",
    "my gpu is not detected\n",
    "How do I make TensorFlow use the GPU?\n",
])
def test_a_library_not_opened_costs_the_gpu_of_a_writer_who_says_they_want_it(words):
    """The writer's own words that they have a GPU they want used: the report asks why it is lost."""
    f = one(_not_opened(words + _CUSOLVER_NOT_OPENED), "log.gpu-libraries")
    assert f.severity.value == "warning" and "libcusolver.so.10" in f.title


@pytest.mark.parametrize("words", [
    "I have no GPU, only the CPU.\n",
    "I don't have a GPU.\n",
    "- GPU model and memory: none\n",
])
def test_a_writer_without_a_gpu_is_not_told_it_was_lost(words):
    assert "log.gpu-libraries" not in {f.code for f in _not_opened(words + _CUSOLVER_NOT_OPENED)}


def test_a_cuda_library_before_10_1_is_tensorflow_gpus_own_so_a_gpu_was_wanted():
    """TensorFlow 2.1's release notes: the tensorflow package "now includes GPU support by default"
    (CUDA 10.1); before it only tensorflow-gpu opened CUDA, so cudart64_100.dll says the GPU
    package was installed, and 11.0's runtime alone still says nothing."""
    line = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library "
            "'cudart64_100.dll'; dlerror: cudart64_100.dll not found\n")
    f = one(_not_opened(line), "log.gpu-libraries")
    assert "cudart64_100.dll" in f.title and "CUDA 10.0" in f.title
    assert "log.gpu-libraries" not in {f.code for f in _not_opened(line.replace("100", "110"))}


def test_the_cuda_runtime_the_stub_could_not_open_costs_the_gpu_the_report_names():
    # tensorflow/tensorflow#61689: TensorFlow 2.13 beside CUDA 12.0 and an RTX 2080 SUPER
    f = one(diagnose(linux_cpu(packages=[_pkg("tensorflow", "2.13.0", ["cp38-cp38-manylinux_2_17_x86_64"])]),
                     "cuda_drivers_not_found_rtx.txt"),
            "log.gpu-libraries")
    assert f.severity.value == "warning" and "could not open the CUDA runtime" in f.title
    assert "tensorflow[and-cuda]" not in commands(f)  # 2.13 has no such extra


def test_the_stub_s_line_on_a_machine_that_names_no_gpu_is_no_finding():
    text = ("2024-06-07 14:17:16.238228: I external/local_tsl/tsl/cuda/cudart_stub.cc:32] Could not find cuda "
            "drivers on your machine, GPU will not be used.\nTraceback (most recent call last):\n"
            "ValueError: Input 0 of layer dense is incompatible with the layer\n")
    assert "log.gpu-libraries" not in {f.code for f in _not_opened(text)}


def test_tensorflow_1_s_own_cudnn_numbers_are_tensorflow_s_in_a_text_that_never_names_it(tmp_path):
    # tensorflow/tensorflow#4760's line alone: cudnnGetVersion()'s numbers with their compatibility
    # versions are TensorFlow 1.x's form, printed before JAX existed; the dotted form stays unclaimed
    line = (LOGS / "cudnn_version_mismatch_legacy.txt").read_text(encoding="utf-8").splitlines()[3]
    assert "tensorflow" not in line.lower()
    (f,) = _text_findings(tmp_path, "I am trying to train a ConvNet on my laptop and got this error.\n\n" + line + "\n")
    assert f.code == "log.gpu-libraries" and f.severity.value == "error"
    assert f.evidence["log_printed_by"] == "TensorFlow 1.x" and "compiled with cuDNN 5.1.3" in f.title


def test_xla_s_gpu_device_beside_a_library_not_opened_is_a_gpu_that_was_skipped():
    # TensorFlow 2.0-2.3 list XLA_GPU where XLA found a CUDA GPU; its own GPU device needs cuDNN
    text = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library "
            "'libcudnn.so.7'; dlerror: libcudnn.so.7: cannot open shared object file: No such file or directory\n"
            ">>> tf.config.list_physical_devices()\n[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU'),\n"
            " PhysicalDevice(name='/physical_device:XLA_GPU:0', device_type='XLA_GPU')]\n")
    f = one(_not_opened(text), "log.gpu-libraries")
    assert "libcudnn.so.7" in f.title and "cuDNN 7" in f.title


def test_absurd_cudnn_releases_are_not_echoed_in_the_advice(tmp_path):
    text = ("tensorflow/stream_executor/cuda/cuda_dnn.cc:319] Loaded runtime CuDNN library: 99999999999999.6.0 "
            "but source was compiled with: 7.6.0.  CuDNN library major and minor version needs to match\n")
    (f,) = _text_findings(tmp_path, text)
    assert f.code == "log.gpu-libraries" and "99999" not in f.title and "log_loaded" not in f.evidence


def test_a_writer_who_says_tensorflow_looked_for_another_cuda_release_lost_the_gpu():
    """"tensorflow was looking for CUDA 11 libraries, instead of 12" (tensorflow/tensorflow#59413,
    a person's words) is the loader's failure told by release: on a machine that says it has an
    NVIDIA GPU, the build wants CUDA 11; where none is said, it is no finding, as the loader's line."""
    words = "tensorflow was looking for CUDA 11 libraries, instead of 12.\n"
    (f,) = [x for x in _not_opened("| NVIDIA-SMI 525.60.11    Driver Version: 527.37    CUDA Version: 12.0     |\n"
                                   + words) if x.code == "log.gpu-libraries"]
    assert f.severity.value == "warning" and f.evidence["said"]
    assert "this build wants CUDA 11" in f.title
    assert "log.gpu-libraries" not in {x.code for x in _not_opened(words)}
