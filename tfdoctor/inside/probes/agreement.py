"""Do the GPU and the CPU compute the same numbers? The relative L2 error ||gpu - cpu|| / ||cpu||
of a workload's outputs, computed in float64 on the CPU, judged against TOLERANCE (and, for the
gradients of the training step, against gradient_tolerance, as they pass through kinks).

Runs inside the diagnosed interpreter: standard library and tensorflow (passed in as `tf`),
Python 3.8+. The model child (model/compare.py) and benchmarks/gradient_kinks.py use
relative_error too.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Mapping, Optional

from tfdoctor.inside.shared.probe_config import TOLERANCE, gradient_tolerance

__all__ = ["relative_error", "worst_relative_error", "agreement"]


def relative_error(tf, got, want):
    """||got - want|| / ||want|| over lists of tensors, in float64 on the CPU; None when a value
    is not finite (then `finite` is False)."""
    num = 0.0
    den = 0.0
    with tf.device("/CPU:0"):
        for g, w in zip(got, want):
            g64 = tf.cast(tf.reshape(tf.identity(g), [-1]), tf.float64)
            w64 = tf.cast(tf.reshape(tf.identity(w), [-1]), tf.float64)
            if not bool(tf.reduce_all(tf.math.is_finite(g64)).numpy()):
                return None, False
            num += float(tf.reduce_sum(tf.square(g64 - w64)).numpy())
            den += float(tf.reduce_sum(tf.square(w64)).numpy())
    if den == 0.0:
        return (0.0 if num == 0.0 else None), True
    return math.sqrt(num / den), True


def worst_relative_error(tf, got, want):
    """The largest relative_error of one tensor of `got` against its own in `want`: a wrong
    gradient of one small layer is not diluted by the others."""
    worst = 0.0
    for g, w in zip(got, want):
        err, finite = relative_error(tf, [g], [w])
        if not finite or err is None:
            return err, finite
        worst = max(worst, err)
    return worst, True


def agreement(tf: Any, configured: Mapping[str, float], workload: str, device: str,
              entry: Dict[str, Any], last: Any) -> Optional[Dict[str, Any]]:
    """Agreement of `device`'s result with the CPU's; on the CPU, keep its result as the
    reference (computed on the CPU once when the CPU itself is not probed). `entry` holds the
    workload's instance ("kind") and the CPU's reference ("outputs", "cpu_last"); `configured`
    is the configuration's per-workload tolerance (TOLERANCE where it has none)."""
    kind = entry["kind"]
    if device == "CPU:0":
        # The reference is computed when a GPU needs it (train's takes ~0.3 s on 2 cores).
        entry["cpu_last"] = last
        return None
    if entry["outputs"] is None:
        cpu_out = entry.get("cpu_last")
        if cpu_out is None and not kind.training_step:
            cpu_out = kind.prepare("/CPU:0").step()
        entry["outputs"] = kind.outputs("/CPU:0", cpu_out)
    reference = entry["outputs"]
    mine = kind.outputs("/" + device, last)
    tolerance = float(configured.get(workload, TOLERANCE[workload]))
    values = {}
    finite = True
    for key in ("output", "logits", "gradients", "dense_relu_eager", "dense_relu_graph"):
        if key in reference:
            measure = worst_relative_error if key == "gradients" else relative_error
            err, ok = measure(tf, mine[key], reference[key])
            values[key] = err
            finite = finite and ok
    if "loss" in reference:
        a = float(mine["loss"][0].numpy())
        b = float(reference["loss"][0].numpy())
        values["loss"] = abs(a - b) / abs(b) if (math.isfinite(a) and math.isfinite(b) and b) else None
        finite = finite and math.isfinite(a)
    tolerances = {k: tolerance for k in values if k != "loss"}
    if "gradients" in tolerances:
        tolerances["gradients"] = gradient_tolerance(tolerance, values.get("logits"))
    ok = finite and all(values[k] is not None and values[k] <= t for k, t in tolerances.items())
    return {"reference": "CPU:0", "metric": "relative L2 error", "values": values,
            "tolerance": tolerance, "tolerances": tolerances, "ok": ok, "finite": finite}
