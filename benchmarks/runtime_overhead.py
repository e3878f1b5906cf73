"""What the runtime child costs on top of a bare `python -c "import tensorflow"`.

Four measurements, interleaved so machine noise hits each alike, with the TensorFlow venv's python:
  bare    python -c "import tensorflow"
  bare+exit  python -c "import tensorflow, os; os._exit(0)": the bare import without interpreter
          teardown, which the child skips too (TensorFlow's teardown costs about half a second)
  child   python tfdoctor/inside/runtime/__main__.py RESULT --timeout 60   (import, memory growth,
          devices, a pinned op per device, memory info, Keras; result written after each stage)
  parent  tfdoctor.gather.runtime.gather_runtime(python, 60) in this process: the child plus the
          parent's process group, stderr capture and parsing (logparse) and classification
Prints medians, spreads and the ratios child/bare and parent/bare; also the child's own
import_s (TensorFlow's import inside the child) against the bare process time.

    python benchmarks/runtime_overhead.py [--runs 9] [--tf-python PATH]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time

from timing import describe, parser, tf_python, wall  # noqa: E402  (puts the repo on sys.path)

from tfdoctor.gather.runtime import child_env, gather_runtime  # noqa: E402
from tfdoctor.gather.static import INSIDE, child_program  # noqa: E402


def main() -> None:
    args = parser(__doc__, runs=9).parse_args()
    tf_py = tf_python(args.tf_python)
    env = child_env()  # the same environment for both: TF_CPP_MIN_LOG_LEVEL=0, unbuffered
    env.pop("TF_PLUGGABLE_DEVICE_LIBRARY_PATH", None)
    bare = [tf_py, "-c", "import tensorflow"]
    bare_exit = [tf_py, "-c", "import tensorflow, os; os._exit(0)"]
    with tempfile.TemporaryDirectory() as tmp:
        result = os.path.join(tmp, "result.json")
        child = [tf_py, str(child_program(INSIDE.parents[1], "runtime")), result, "--timeout", "60"]
        wall(bare, env), wall(child, env)  # warm the file cache
        bare_s, exit_s, child_s, parent_s, import_s = [], [], [], [], []
        for _ in range(args.runs):
            bare_s.append(wall(bare, env)[0])
            exit_s.append(wall(bare_exit, env)[0])
            child_s.append(wall(child, env)[0])
            with open(result) as handle:
                import_s.append(json.load(handle)["import_s"])
            start = time.perf_counter()
            facts = gather_runtime(tf_py, 60)
            parent_s.append(time.perf_counter() - start)
            assert facts.outcome == "ok", facts.message
    note = f"cpus={os.cpu_count()} python={sys.version.split()[0]} TF {facts.tf_version}"
    print(f"runtime child vs import tensorflow ({note}, TF python {tf_py})")
    print(describe("bare: python -c 'import tensorflow'", bare_s, width=44))
    print(describe("bare+exit: ... import tensorflow, os._exit", exit_s, width=44))
    print(describe("child: inside/runtime (whole process)", child_s, width=44))
    print(describe("parent: gather_runtime() (child + parsing)", parent_s, width=44))
    print(describe("  import tensorflow inside the child", import_s, width=44))
    bare_m, exit_m = statistics.median(bare_s), statistics.median(exit_s)
    child_m, parent_m = statistics.median(child_s), statistics.median(parent_s)
    print(f"ratio of medians child/bare: {child_m / bare_m:.3f}  parent/bare: {parent_m / bare_m:.3f}  "
          f"child/bare+exit: {child_m / exit_m:.3f}  parent/bare+exit: {parent_m / exit_m:.3f}")
    print(f"overhead of the child's work (child - bare+exit): {child_m - exit_m:+.3f} s; "
          f"of the parent side (parent - child): {parent_m - child_m:+.3f} s")


if __name__ == "__main__":
    main()
