"""tfdoctor/logtext/nvidia.py: which part of NVIDIA's stack a library is, and the release its
name asks for (the soname's or the Windows DLL's version suffix)."""

from __future__ import annotations

import pytest

from tfdoctor.logtext.catalog import recognise
from tfdoctor.logtext.nvidia import cudnn_release, part, wanted_version


@pytest.mark.parametrize("library,expected_part,expected_version", [
    ("libcublas.so.8.0", "CUDA", "8.0"),
    ("/usr/local/cuda/lib64/libcudart.so.10.0", "CUDA", "10.0"),
    ("libcusolver.so.11", "CUDA", "11.1-12.x"),
    ("libcusolver.so.10", "CUDA", "10.1-11.0"),
    ("libcublasLt.so.11", "CUDA", "11.x"),
    ("libcufft.so.10", "CUDA", "10.1-11.8"),
    ("libcurand.so.10", "CUDA", "10.1-12.x"),
    ("libcusparse.so.12", "CUDA", "12.x"),
    ("libcudart.so.11.0", "CUDA", "11.x"),
    ("libcudart.so.10.1", "CUDA", "10.1"),
    ("libcufft.so.9.0", "CUDA", "9.0"),
    ("cudart64_110.dll", "CUDA", "11.x"),
    ("cusolver64_10.dll", "CUDA", "10.1-11.0"),
    ("libnvrtc.so.11.2", "CUDA", "11.2"),
    ("libcudnn.so.7", "cuDNN", "7"),
    ("libcudnn_ops.so.9", "cuDNN", "9"),
    ("cudart64_100.dll", "CUDA", "10.0"),
    ("cudart64_90.dll", "CUDA", "9.0"),
    ("cudart64_101.dll", "CUDA", "10.1"),
    ("cublas64_11.dll", "CUDA", "11.x"),
    ("cudnn64_7.dll", "cuDNN", "7"),
    ("libcudart.8.0.dylib", "CUDA", "8.0"),
    ("libcuda.so.1", "driver", None),
    ("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "driver", None),
    ("nvcuda.dll", "driver", None),
    ("libcudnn.so", "cuDNN", None),
])
def test_the_part_and_the_release_a_library_name_asks_for(library, expected_part, expected_version):
    assert part(library) == expected_part and wanted_version(library) == expected_version


@pytest.mark.parametrize("name", ["libnvinfer.so.7", "libGL.so.1", "libtensorflow_framework.so.2",
                                  "mylibcuda.so.1", "libcudart_static.a"])
def test_other_libraries_are_not_nvidias_stack(name):
    assert "log.gpu-libraries" not in {m.code for m in recognise(
        f"ImportError: {name}: cannot open shared object file: No such file or directory")}


def test_a_library_of_the_stack_in_the_same_message_is():
    assert [m.fields["library"] for m in recognise(
        "ImportError: libcudart.so.9.0: cannot open shared object file: No such file or directory")] == ["libcudart.so.9.0"]


@pytest.mark.parametrize("printed,release", [("5103", "5.1.3"), ("6021", "6.0.21"), ("7004", "7.0.4"),
                                             ("7.6.0", "7.6.0"), ("8.9.7", "8.9.7")])
def test_tensorflow_0x_printed_cudnn_s_number_which_is_read_as_its_release(printed, release):
    assert cudnn_release(printed) == release
