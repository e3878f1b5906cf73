# Killed by SIGABRT during import, after one of TensorFlow's fatal log lines (real format).
import os
import signal
import sys

sys.stderr.write(
    "2024-12-02 10:00:00.000000: F tensorflow/core/framework/op_kernel.cc:1000] Check failed: "
    "kernel registration succeeded\n"
)
sys.stderr.flush()
os.kill(os.getpid(), signal.SIGABRT)
