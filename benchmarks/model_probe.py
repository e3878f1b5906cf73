"""`probe --model` speed, and the fallback figures for the closing note of issue 13.

Three measurements, with the TensorFlow venv's python and the simulated GPU (tests/simgpu):
  mobilenetv2   probe_model(workload="mobilenetv2", batch 8) with CPU and simulated GPU both
                measured (placement, layer-by-layer agreement, timing, memory): wall time of the
                whole child, target under 45 s on a 2-core machine, bounded by --budget
  200 layers    the fallback report for a 200-layer model (100 Dense + 100 ReLU layers): the
                child's own time to trace the inference and training graphs and look every op
                up in TensorFlow's kernel registry, after TensorFlow is imported; target < 3 s
  predicted     the ops predicted to fall back to the CPU on tensorflow-metal 1.2.0 for the
                MobileNetV2 and MultiHeadAttention presets (no GPU: from the kernel table)

    python benchmarks/model_probe.py [--runs 1] [--tf-python PATH] [--budget 30]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

from timing import parser, tf_python  # noqa: E402  (puts the repo and tests/ on sys.path)

from tfdoctor.gather import user_model  # noqa: E402
from tfdoctor.render.model_summary import summarize  # noqa: E402

DEEP_MODULE = '''
import keras


def deep():
    """200 layers: Dense and ReLU alternating."""
    layers = [keras.Input((64,))]
    for i in range(100):
        layers += [keras.layers.Dense(64, name="dense%d" % i), keras.layers.ReLU(name="relu%d" % i)]
    model = keras.Sequential(layers, name="deep")
    model.compile(optimizer="adam", loss="mse")
    return model
'''


def env_for(mode: str | None) -> dict[str, str]:
    from simgpu import build as simgpu_build
    from support import tfenv

    extra = {"TF_CPP_MIN_LOG_LEVEL": "2"}
    if mode is not None:
        plugin = simgpu_build.build_plugin(tfenv.tf_python())
        extra.update(SIMGPU_MODE=mode, SIMGPU_QUIET="1", TF_PLUGGABLE_DEVICE_LIBRARY_PATH=str(plugin))
    return tfenv.tf_subprocess_env(extra=extra)


def timed_probe(python: str, config: dict, env: dict, plugin: str | None = None):
    started = time.perf_counter()
    facts = user_model.probe_model(python, config, plugin=plugin, env=env)
    return time.perf_counter() - started, facts


def main() -> None:
    p = parser(__doc__, runs=1)
    p.add_argument("--budget", type=float, default=30.0)
    args = p.parse_args()
    python = tf_python(args.tf_python)
    print(f"model probe (cpus={os.cpu_count()}, TF python {python})")

    walls = []
    for _ in range(args.runs):
        config = user_model.child_config(model=None, workload="mobilenetv2", batch=8,
                                          budget_s=args.budget)
        took, facts = timed_probe(python, config, env_for("ok"))
        assert facts.outcome == "ok", summarize(facts)
        walls.append(took)
    stages = facts.to_json()
    print(f"mobilenetv2 batch 8, CPU + simulated GPU, --budget {args.budget:g}: wall "
          f"{statistics.median(walls):.1f} s (runs {', '.join(f'{w:.1f}' for w in walls)}; "
          f"target < 45 s); child elapsed {stages['elapsed_s']} s")
    print("  " + summarize(facts).replace("\n", "\n  "))

    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "deepmodel.py"), "w") as handle:
            handle.write(DEEP_MODULE)
        config = user_model.child_config(model="deepmodel:deep", workload=None, batch=8,
                                          budget_s=30, sys_path=[tmp], compare=False,
                                          timing=False, memory=False)
        report_s = []
        for _ in range(max(1, args.runs)):
            took, facts = timed_probe(python, config, env_for("ok"))
            assert facts.outcome == "ok", summarize(facts)
            report_s.append(facts.ops_report_s)
        print(f"fallback report, {facts.model['layers']} layers, {facts.ops_total} ops in the "
              f"inference and training graphs: {statistics.median(report_s):.2f} s after the "
              f"import (target < 3 s); whole child {took:.1f} s")

    for workload in ("mobilenetv2", "attention"):
        config = user_model.child_config(model=None, workload=workload, batch=2, budget_s=30,
                                          compare=False, timing=False, memory=False)
        _, facts = timed_probe(python, config, env_for(None), plugin="1.2.0")
        assert facts.fallback_source == "table:1.2.0", summarize(facts)
        keras = facts.settings.get("keras_version")
        print(f"{workload}: predicted CPU fallback on tensorflow-metal 1.2.0 (Keras {keras}):")
        for graph in ("inference", "training"):
            ops = facts.fallback_ops(graph)
            print(f"  {graph}: {', '.join(ops) if ops else 'none'}")
        layers = sorted({(f.layer, f.op) for f in facts.fallbacks})
        print("  by layer: " + "; ".join(f"{layer}: {op}" for layer, op in layers))


if __name__ == "__main__":
    sys.exit(main())
