"""Every op of the model's inference and training graphs, with its layer, dtype and whether
TensorFlow has a GPU kernel for it (after the plugin loaded), and the ops that really ran on the
CPU with the model pinned to the GPU (the executed partition graphs).

Standard library and TensorFlow only; Python 3.8+.
"""

from __future__ import annotations

import time

from tfdoctor.inside.model.calls import new_optimizer, read_back
from tfdoctor.inside.model.inputs import all_layers, call_model
from tfdoctor.inside.model.state import stage_error

DTYPE_ATTRS = ("T", "dtype", "DstT", "Tparams", "out_type", "Tout")
FUNC_ATTRS = ("body", "cond", "f", "then_branch", "else_branch", "branches")
HOST_ONLY_OPS = frozenset(("_Send", "_Recv", "_HostSend", "_HostRecv", "_Arg", "_Retval",
                           "NoOp", "Const", "_DeviceArg", "_DeviceRetval", "Placeholder"))


def node_dtype(tf, node):
    for attr in DTYPE_ATTRS:
        if attr in node.attr and node.attr[attr].type:
            try:
                return attr, tf.as_dtype(node.attr[attr].type).name
            except Exception:  # noqa: BLE001
                return attr, None
    return None, None


class LayerNames(object):
    """Maps op names (scoped by layer, Keras 3 adds "_1" to repeated scopes) to layer names."""

    def __init__(self, model):
        self.names = set(l.name for l in all_layers(model))

    def match(self, part):
        if part in self.names:
            return part
        head, sep, tail = part.rpartition("_")
        if sep and tail.isdigit() and head in self.names:
            return head
        return None

    def layer_of(self, name, default):
        parts = name.split("/")
        for part in reversed(parts[:-1] or parts):
            found = self.match(part)
            if found:
                return found
        for part in parts:
            low = part.lower()
            if "loss" in low or "crossentropy" in low or "squared_error" in low:
                return "(loss)"
            if low in ("adam", "sgd", "rmsprop", "adamw", "adagrad", "optimizer") \
                    or low.startswith("adam") or low.startswith("sgd"):
                return "(optimizer)"
        return default

    def layer_in_text(self, text):
        best = None
        for name in self.names:
            if name in text and (best is None or len(name) > len(best)):
                best = name
        return best


class KernelRegistry(object):
    """Which (op, dtype) pairs TensorFlow has a GPU kernel for, after loading the plugin."""

    def __init__(self, tf):
        self.tf = tf
        self.cache = {}
        try:
            from tensorflow.python.framework import kernels
            self.kernels = kernels
        except Exception:  # noqa: BLE001 - very old TensorFlow
            self.kernels = None

    def has_gpu_kernel(self, op, attr, dtype):
        if self.kernels is None:
            return None
        key = (op, attr, dtype)
        if key not in self.cache:
            self.cache[key] = self._lookup(op, attr, dtype)
        return self.cache[key]

    def _lookup(self, op, attr, dtype):
        try:
            registered = self.kernels.get_registered_kernels_for_op(op).kernel
        except Exception:  # noqa: BLE001
            return None
        for kernel in registered:
            if kernel.device_type not in ("GPU", "DEFAULT"):
                continue
            ok = True
            for c in kernel.constraint:
                if c.name == attr and dtype is not None:
                    allowed = [self.tf.as_dtype(t).name for t in c.allowed_values.list.type]
                    ok = dtype in allowed
            if ok:
                return True
        return False


def collect_ops(tf, graph_def, names, registry, graph_name, table):
    func_layer = {}

    def visit(nodes, scope_layer, in_function):
        for node in nodes:
            layer = names.layer_of(node.name, scope_layer)
            for attr in FUNC_ATTRS:
                if attr in node.attr:
                    value = node.attr[attr]
                    funcs = [value.func.name] if value.func.name else \
                        [f.name for f in value.list.func]
                    for f in funcs:
                        func_layer.setdefault(f, layer)
            if node.op in HOST_ONLY_OPS:
                continue
            attr, dtype = node_dtype(tf, node)
            key = (graph_name, layer, node.op, dtype)
            entry = table.get(key)
            if entry is None:
                entry = {"graph": graph_name, "layer": layer, "op": node.op, "dtype": dtype,
                         "count": 0, "example": node.name,
                         "gpu_kernel": registry.has_gpu_kernel(node.op, attr, dtype)}
                table[key] = entry
            entry["count"] += 1

    visit(graph_def.node, "(model)", False)
    functions = list(graph_def.library.function)
    for _ in range(3):  # nested functions: a body's own calls are resolved on the next pass
        for function in functions:
            name = function.signature.name
            layer = func_layer.get(name) or names.layer_in_text(name) or "(model)"
            func_layer[name] = layer
    for function in functions:
        visit(function.node_def, func_layer.get(function.signature.name, "(model)"), True)


def tensor_specs(tf, bundle):
    return [tf.TensorSpec([None] + list(x.shape[1:]), x.dtype) for x in bundle["inputs"]]


def graph_ops(tf, model, bundle, calls):
    started = time.monotonic()
    names = LayerNames(model)
    registry = KernelRegistry(tf)
    table = {}
    specs = tensor_specs(tf, bundle)
    concrete = calls.function("inference").get_concrete_function(*specs)
    collect_ops(tf, concrete.graph.as_graph_def(), names, registry, "inference", table)
    if bundle.get("trainable"):
        # The training step's ops, traced without running: the forward pass and gradients,
        # then the optimizer's update for one variable of each dtype (its ops are the same
        # for every variable, and tracing Adam for 200 variables takes seconds).
        labels = bundle["labels"]
        label_spec = tf.TensorSpec([None] + list(labels.shape[1:]), labels.dtype)
        variables = model.trainable_variables
        loss_fn = bundle["loss_fn"]

        def gradients(xs, labels):
            with tf.GradientTape() as tape:
                pred = tf.nest.flatten(call_model(model, xs, True))[0]
                loss = tf.reduce_mean(loss_fn(labels, pred))
            return [g for g in tape.gradient(loss, variables) if g is not None]
        concrete = tf.function(gradients).get_concrete_function(specs, label_spec)
        collect_ops(tf, concrete.graph.as_graph_def(), names, registry, "training", table)
        sample = dict((v.dtype.name if hasattr(v.dtype, "name") else str(v.dtype), v)
                      for v in variables)
        chosen = list(sample.values())
        optimizer = new_optimizer(tf, model)
        if hasattr(optimizer, "build"):
            try:
                optimizer.build(chosen)
            except Exception:  # noqa: BLE001 - legacy optimizers build lazily
                pass

        def update(*grads):
            optimizer.apply_gradients(list(zip(grads, chosen)))
            return tf.constant(0)
        grad_specs = [tf.TensorSpec(v.shape, v.dtype) for v in chosen]
        concrete = tf.function(update).get_concrete_function(*grad_specs)
        optimizer_table = {}
        collect_ops(tf, concrete.graph.as_graph_def(), names, registry, "training",
                    optimizer_table)
        for key, entry in optimizer_table.items():
            entry["layer"] = "(optimizer)"
            table.setdefault((key[0], "(optimizer)") + key[2:], entry)
    ops = sorted(table.values(), key=lambda e: (e["graph"], e["layer"], e["op"]))
    return {"ops": ops, "registry": registry.kernels is not None,
            "seconds": round(time.monotonic() - started, 4)}


def placement(tf, model, calls, describe):
    """Ops that really ran on the CPU with the model pinned to /GPU:0 (the executed partition
    graphs of one inference call and one training step, from RunMetadata)."""
    from tensorflow.python.eager import context
    names = LayerNames(model)
    result = {"cpu_ops": [], "gpu_ops": 0, "error": None}
    ctx = context.context()
    seen = {}
    for graph_name, kind in (("inference", "inference"), ("training", "train")):
        call = calls.call(kind, "/GPU:0")
        if call is None:
            continue
        try:
            # TensorFlow records a function's partition graphs when it instantiates it for a
            # device, at its first call there: this must be the first call on the GPU.
            ctx.enable_run_metadata()
            try:
                read_back(tf, call())
                metadata = ctx.export_run_metadata()
            finally:
                ctx.disable_run_metadata()
        except Exception as exc:  # noqa: BLE001
            result["error"] = describe(exc)
            stage_error("placement", exc, names)
            continue
        # The function's own partitions (where its ops were placed); the eager read-back's
        # ops are in metadata.partition_graphs and are not the model's.
        graphs = []
        for fg in metadata.function_graphs:
            graphs.extend(fg.partition_graphs)
        for graph in graphs:
            for node in graph.node:
                if node.op in HOST_ONLY_OPS:
                    continue
                if "GPU" in node.device.upper():
                    result["gpu_ops"] += 1
                    continue
                _, dtype = node_dtype(tf, node)
                layer = names.layer_of(node.name, "(model)")
                key = (graph_name, layer, node.op, dtype)
                if key not in seen:
                    seen[key] = {"graph": graph_name, "layer": layer, "op": node.op,
                                 "dtype": dtype, "count": 0, "example": node.name,
                                 "device": node.device}
                    result["cpu_ops"].append(seen[key])
                seen[key]["count"] += 1
    return result
