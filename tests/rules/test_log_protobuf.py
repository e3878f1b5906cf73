"""checks/log_protobuf.py: protobuf's errors from real public threads (tests/data/logs/, sources in
SOURCES.json), judged by what is installed: TensorFlow's pin, the installed protobuf (can this
environment have printed it?), and whose generated code failed."""

from __future__ import annotations

from log_cases import ARM, LOGS, WHO, LogRules, commands, one
from snapshots import _pkg, apple_silicon, linux_cpu, snap

from tfdoctor.logtext import keep
from tfdoctor.logtext.catalog import recognise
from tfdoctor.model import Severity

check = LogRules("log_protobuf")
diagnose = check.diagnose
TF_216_PIN = ["protobuf!=4.21.0,!=4.21.1,!=4.21.2,!=4.21.3,!=4.21.4,!=4.21.5,<5.0.0dev,>=3.20.3"]


def test_protobuf_4_with_tensorflow_macos_2_9():
    data = apple_silicon(python={"version": "3.9.13"},
                         packages=[_pkg("tensorflow-macos", "2.9.0", ["cp39-cp39-macosx_11_0_arm64"]),
                                   _pkg("protobuf", "4.21.1", ["cp37-abi3-macosx_10_9_universal2"])])
    f = one(diagnose(data, "protobuf_descriptors.txt"), "log.protobuf-descriptors")
    assert f.evidence["protobuf"] == "4.21.1" and "protobuf==3.20.3" in commands(f)


def test_a_paste_starting_at_the_messages_workarounds_is_still_protobuf_too_new():
    """maudzung/SFA3D#82's text from its third line on (a paste that lost the error's first lines):
    the workarounds are the same message's, so it is the same finding."""
    tail = (LOGS / "protobuf_descriptors.txt").read_text().split("\n", 2)[2]
    assert "Descriptors" not in tail and "_pb2" not in tail
    data = apple_silicon(python={"version": "3.9.13"},
                         packages=[_pkg("tensorflow-macos", "2.9.0", ["cp39-cp39-macosx_11_0_arm64"]),
                                   _pkg("protobuf", "4.21.1", ["cp37-abi3-macosx_10_9_universal2"])])
    s = snap(data)
    s.log = keep.from_bytes(tail.encode(), "paste", identity=WHO)
    (f,) = [f for f in check.run(s) if f.code == "log.protobuf-descriptors"]
    assert f.severity == Severity.ERROR and "protobuf==3.20.3" in commands(f)
    assert [m.variant for m in recognise(tail)] == ["protobuf-descriptors-workarounds"]
    assert [m.variant for m in recognise((LOGS / "protobuf_descriptors.txt").read_text())] == ["protobuf-descriptors"]


def test_protobuf_descriptors_under_a_pin_of_tensorflow_2_12_plus_are_another_packages():
    # TensorFlow 2.12+ ships generated code protobuf 4 accepts and pins protobuf to it
    pin = ["protobuf!=4.21.0,!=4.21.1,!=4.21.2,!=4.21.3,!=4.21.4,!=4.21.5,<5.0.0dev,>=3.20.3"]
    data = apple_silicon(packages=[_pkg("tensorflow", "2.16.1", ARM, pin),
                                   _pkg("protobuf", "4.25.3", ["cp37-abi3-macosx_10_9_universal2"]),
                                   _pkg("onnx", "1.12.0", ARM)])
    s = snap(data)
    text = (LOGS / "protobuf_descriptors.txt").read_text()
    s.log = keep.from_bytes((text + '  File "/Users/ada/venv/lib/python3.11/site-packages/onnx/'
                             'onnx_ml_pb2.py", line 5\n').encode(), "onnx.log", identity=WHO)
    (f,) = [f for f in check.run(s) if f.code == "log.protobuf-descriptors"]
    assert f.severity == Severity.INFO and "is onnx's, not TensorFlow's" in f.title
    assert "--upgrade -- onnx" in commands(f)


def test_protobuf_descriptors_where_protobuf_3_is_installed_came_from_another_environment():
    data = apple_silicon(python={"version": "3.9.13"},
                         packages=[_pkg("tensorflow-macos", "2.9.0", ["cp39-cp39-macosx_11_0_arm64"]),
                                   _pkg("protobuf", "3.19.6", ["cp39-cp39-macosx_10_9_x86_64"])])
    f = one(diagnose(data, "protobuf_descriptors.txt"), "log.protobuf-descriptors")
    assert f.severity == Severity.INFO and "another environment printed it" in f.title


def test_protobuf_fatal_with_a_broken_metal_pair_includes_the_pair():
    data = apple_silicon(packages=[_pkg("tensorflow", "2.18.0", ARM), _pkg("tensorflow-metal", "1.1.0", ARM)])
    f = one(diagnose(data, "protobuf_fatal_tf216.txt"), "log.protobuf-fatal")
    assert f.evidence["log_check"] == "target + size == res" and "tensorflow-metal==1.2.0" in commands(f)


def test_tensorflows_generated_code_under_a_protobuf_before_3_20():
    # tensorflow/tensorflow#60175: function_pb2.py (protoc 3.20+) imports builder, which 3.19 lacks
    data = apple_silicon(packages=[_pkg("tensorflow", "2.16.1", ARM, TF_216_PIN),
                                   _pkg("protobuf", "3.19.6", ["cp39-cp39-macosx_10_9_x86_64"])])
    f = one(diagnose(data, "protobuf_no_builder.txt"), "log.protobuf-too-old")
    assert f.severity is Severity.ERROR and f.evidence["generated_code_of"] == "tensorflow"
    assert "older than tensorflow's generated code needs (3.20+)" in f.title
    assert "'protobuf>=3.20,!=4.21.0" in commands(f) and "<5.0.0dev,>=3.20.3'" in commands(f)


def test_generated_code_newer_than_the_runtime_is_judged_by_its_owner_and_by_what_is_installed():
    # YarmolenkoD/notpixel#134: another project's client.proto (gencode 5.28.3, runtime 5.27.3)
    data = apple_silicon(packages=[_pkg("tensorflow", "2.16.1", ARM, TF_216_PIN)])
    f = one(diagnose(data, "protobuf_gencode_newer_runtime.txt"), "log.protobuf-too-old")
    assert f.severity is Severity.INFO and commands(f) == ""
    assert "which TensorFlow 2.16.1 does not allow (!=4.21.0" in f.title  # 5.28.3 is above its <5.0.0dev
    theirs = snap(linux_cpu())
    theirs.log = keep.from_bytes(b"google.protobuf.runtime_version.VersionError: Detected incompatible Protobuf "
                                 b"Gencode/Runtime versions when loading tensorflow/core/framework/attr_value.proto: "
                                 b"gencode 5.28.3 runtime 5.27.2. Runtime version cannot be older than the linked "
                                 b"gencode version.\n", "tf.log", identity=WHO)
    (ours,) = [f for f in check.run(theirs) if f.code == "log.protobuf-too-old"]
    assert ours.severity is Severity.ERROR and ours.evidence["generated_code_of"] == "tensorflow"
    newer = apple_silicon(packages=[_pkg("protobuf", "5.29.0", ["cp38-abi3-macosx_10_9_universal2"])])
    here = one(diagnose(newer, "protobuf_gencode_newer_runtime.txt"), "log.protobuf-too-old")
    assert here.severity is Severity.INFO and "another environment printed it" in here.title


def test_two_copies_of_protobuf_in_one_process_abort_in_a_mutex():
    # apache/arrow#40088: TensorFlow, then pyarrow, on macOS; tensorflow/tensorflow#98563 names TensorFlow 2.20
    tf220 = apple_silicon(packages=[_pkg("tensorflow", "2.20.0", ARM)])
    f = one(diagnose(tf220, "mutex_lock_failed_pyarrow.txt"), "log.protobuf-fatal")
    assert f.severity is Severity.ERROR and "import them in the other order" in f.title
    assert "tensorflow<2.20" in commands(f)
    older = one(diagnose(apple_silicon(packages=[_pkg("tensorflow", "2.16.1", ARM)]), "mutex_lock_failed_pyarrow.txt"),
                "log.protobuf-fatal")
    assert commands(older) == ""


def test_each_module_generated_code_imports_names_the_runtime_that_added_it():
    # PokemonGoF/PokemonGo-Bot#2268: Python 2 names no module; the generated line above it does (2.6+)
    old = one(diagnose(linux_cpu(packages=[]), "protobuf_gencode_symbol_database.txt"), "log.protobuf-too-old")
    assert old.evidence["log_module"] == "symbol_database" and "(2.6+)" in old.title
    assert old.severity is Severity.INFO  # another project's code, no TensorFlow in the text or here
    # starik222/BooruDatasetTagManager#186: protoc 5.26+ code imports runtime_version
    data = linux_cpu(packages=[_pkg("protobuf", "4.25.8", ["cp310-abi3-win_amd64"])])
    new = one(diagnose(data, "protobuf_gencode_runtime_version.txt"), "log.protobuf-too-old")
    assert new.evidence["log_module"] == "runtime_version" and "protobuf 4.25.8 is older" in new.title
    assert "(5.26+)" in new.title
    shouted = recognise("IMPORTERROR: CANNOT IMPORT NAME 'BUILDER' FROM 'GOOGLE.PROTOBUF.INTERNAL'")  # case ignored
    assert [(m.fields["module"], m.fields["needs"]) for m in shouted] == [("builder", "3.20")]


def test_an_older_libprotobuf_loaded_first_is_named_with_both_releases_and_not_pips_protobuf():
    """tensorflow/tensorflow#19370: protobuf's C++ check ('requires version 3.5.0 ..., but the
    installed version is 2.6.1') while pip lists protobuf 3.5.2: the C++ runtime loaded first is
    another library's or the system's, which pip's package does not show."""
    data = linux_cpu(packages=[_pkg("tensorflow", "1.8.0", []), _pkg("protobuf", "3.5.2.post1", [])])
    f = one(diagnose(data, "protobuf_runtime_older_jetson.txt"), "log.protobuf-fatal")
    assert f.severity == Severity.ERROR and "loaded libprotobuf 2.6.1 before TensorFlow's code" in f.title
    assert "compiled against protobuf 3.5.0" in f.title and "does not tell" in f.title
    another = ("[libprotobuf FATAL /var/lib/jenkins/workspace/x/src/google/protobuf/stubs/common.cc:67] This "
               "program requires version 3.6.1 of the Protocol Buffer runtime library, but the installed "
               "version is 3.1.0.  (Version verification failed in \"google/protobuf/any.pb.cc\".)\n")
    s = snap(linux_cpu())
    s.log = keep.from_bytes(another.encode(), "paste", identity=WHO)
    assert not [x for x in check.run(s) if x.code == "log.protobuf-fatal"]  # another C++ program's, no TensorFlow
    archive = another.replace("/var/lib/jenkins/workspace/x/src", "external/protobuf_archive/src")
    s.log = keep.from_bytes(archive.encode(), "paste", identity=WHO)  # TensorFlow 1.x's Bazel name for protobuf
    assert [x.severity for x in check.run(s) if x.code == "log.protobuf-fatal"] == [Severity.ERROR]
