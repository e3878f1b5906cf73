"""How far apart can two correct devices put the train probe's gradients? Sets the gradient
tolerance of the probes' agreement check (tfdoctor/inside/shared/probe_config.py, KINK_FACTOR).

ReLU and max-pooling are continuous but their derivatives are not: a rounding difference of
relative size d in the forward pass (another summation order, another conv algorithm) flips the
few activations that sit within d of a kink (a pre-activation near 0, two near-equal pooled
values), and each flip moves the conv layers' gradients by a whole term. So the logits and the
Dense layer's gradient (no kink after it) stay within a few d, while the conv gradients move by
about sqrt(d). This script makes such a difference on the CPU alone: the probe's own network
(tfdoctor.inside.shared.workloads.Train), the same inputs, its weights multiplied by (1 + d * N(0, 1)), and compares
the outputs the agreement check compares; it prints, per d, the median and worst relative
errors over the seeds (the probe judges the worst variable's gradient, "worst tensor") and the
largest ratio of a gradient error to sqrt(logits error): the tolerance's floor and KINK_FACTOR
(tfdoctor/inside/shared/probe_config.py) must stay well above what it prints.

    python benchmarks/gradient_kinks.py [--seeds 30] [--batch 16] [--tf-python PATH]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DELTAS = (1e-7, 1e-6, 1e-5, 1e-4)


def inner(seeds: int, batch: int) -> None:
    sys.path.insert(0, str(REPO))
    import tensorflow as tf

    from tfdoctor.inside.probes.agreement import relative_error, worst_relative_error
    from tfdoctor.inside.shared.probe_config import FLOAT32_EPS, TOLERANCE
    from tfdoctor.inside.shared.workloads import Train

    tf.get_logger().setLevel("ERROR")  # the Dense check's tf.function is traced once per seed
    import probe_config  # noqa: E402 - where the tolerance's constants live

    print(f"TF {tf.__version__}, train probe network, batch {batch}, {seeds} seeds per d; "
          f"each variable's gradient is held to max({TOLERANCE['train']:g}, "
          f"min({probe_config.GRADIENT_CEILING:g}, max({probe_config.GRADIENT_FLOOR:g}, "
          f"{probe_config.KINK_FACTOR:g} x sqrt(logits error))))", flush=True)
    for delta in DELTAS:
        errors: dict[str, list[float]] = {"logits": [], "dense gradient": [], "conv gradients": [],
                                          "gradients": [], "worst tensor": []}
        factors, tensor_factors = [], []
        for seed in range(seeds):
            train = Train(tf, batch, 1000 + seed)
            reference = train.outputs("/CPU:0", None)
            noise = tf.random.Generator.from_seed(seed)
            train.weights = [w * (1 + delta * noise.normal(w.shape).numpy()) for w in train.weights]
            moved = train.outputs("/CPU:0", None)
            pairs = {"logits": ("logits", slice(None)), "dense gradient": ("gradients", slice(2, None)),
                     "conv gradients": ("gradients", slice(0, 2)), "gradients": ("gradients", slice(None))}
            for name, (key, part) in pairs.items():
                err, _ = relative_error(tf, moved[key][part], reference[key][part])
                errors[name].append(err)
            per_tensor, _ = worst_relative_error(tf, moved["gradients"], reference["gradients"])
            errors["worst tensor"].append(per_tensor)
            root = math.sqrt(max(errors["logits"][-1], FLOAT32_EPS))
            factors.append(errors["gradients"][-1] / root)
            tensor_factors.append(per_tensor / root)
        line = ", ".join(f"{name} median {statistics.median(v):.2g} max {max(v):.2g}" for name, v in errors.items())
        print(f"d={delta:g}: {line}; gradients/sqrt(logits) max {max(factors):.2f}, "
              f"worst tensor/sqrt(logits) max {max(tensor_factors):.2f}", flush=True)
    sys.stdout.flush()
    os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--tf-python", help="interpreter with TensorFlow (default: the test venv)")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        inner(args.seeds, args.batch)
        return
    from timing import tf_python

    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [tf_python(args.tf_python), __file__, "--inner", "--seeds", str(args.seeds), "--batch", str(args.batch)]
    sys.exit(subprocess.run(cmd, env=env).returncode)


if __name__ == "__main__":
    main()
