# TensorFlow built against NumPy 1.x imported under NumPy 2: NumPy prints this banner (real text,
# numpy 2.0.0) to stderr, then the extension's import fails.
import sys

sys.stderr.write(
    "\n"
    "A module that was compiled using NumPy 1.x cannot be run in\n"
    "NumPy 2.0.0 as it may crash. To support both 1.x and 2.x\n"
    "versions of NumPy, modules must be compiled with NumPy 2.0.\n"
    "Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.\n"
    "\n"
    "If you are a user of the module, the easiest solution will be to\n"
    "downgrade to 'numpy<2' or try to upgrade the affected module.\n"
    "We expect that some modules will need time to support NumPy 2.\n"
    "\n"
)
sys.stderr.flush()
raise AttributeError("_ARRAY_API not found")
