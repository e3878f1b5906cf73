# A NumPy older than the one TensorFlow was built with (real text, numpy C API import_array).
import sys

sys.stderr.write("RuntimeError: module compiled against API version 0xf but this version of numpy is 0xe\n")
sys.stderr.flush()
raise ImportError("numpy.core.multiarray failed to import")
