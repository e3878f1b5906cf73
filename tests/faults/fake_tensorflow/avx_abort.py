# TensorFlow's CPU feature guard aborts when AVX is missing (Rosetta 2, QEMU): it logs this fatal
# line (real text, tensorflow/core/platform/cpu_feature_guard.cc) and calls abort().
import os
import sys

sys.stderr.write(
    "2021-03-01 10:00:00.000000: F tensorflow/core/platform/cpu_feature_guard.cc:37] The "
    "TensorFlow library was compiled to use AVX instructions, but these aren't available on your "
    "machine.\n"
)
sys.stderr.flush()
os.abort()
