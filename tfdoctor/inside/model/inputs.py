"""The model's inputs and labels, made up: synthetic inputs from its input signature (None
dimensions assumed and recorded; integer inputs within the Embedding's vocabulary), labels from
its loss and output shape. Nothing is downloaded, no dataset is read.

Standard library and TensorFlow only; Python 3.8+.
"""

from __future__ import annotations

ASSUMED_DIM = 32
"""Length assumed for an unknown (None) non-batch dimension: a sequence length or image side."""


def call_model(model, xs, training):
    return model(xs[0] if len(xs) == 1 else list(xs), training=training)


def all_layers(model):
    try:
        return [l for l in model._flatten_layers(include_self=False, recursive=True)]
    except Exception:  # noqa: BLE001 - Keras versions differ
        return list(getattr(model, "layers", []))


def model_kind(tf, model):
    if isinstance(model, tf.keras.Sequential):
        return "sequential"
    if getattr(model, "_is_graph_network", False) or type(model).__name__ == "Functional":
        return "functional"
    return "subclassed"


def input_specs(tf, model):
    """[(name, shape with None, dtype name)] from the model's inputs or its recorded build shape."""
    specs = []
    inputs = None
    try:
        inputs = model.inputs
    except Exception:  # noqa: BLE001 - subclassed models have none
        inputs = None
    if inputs:
        for i, t in enumerate(inputs):
            shape = [None if d is None else int(d) for d in tuple(t.shape)]
            name = str(getattr(t, "name", "input_%d" % i)).split(":")[0]
            specs.append((name, shape, tf.as_dtype(t.dtype).name))
        return specs
    built = getattr(model, "_build_shapes_dict", None) or {}
    shape = None
    if len(built) == 1:
        shape = list(built.values())[0]
    elif getattr(model, "_build_input_shape", None) is not None:
        shape = model._build_input_shape
    if shape is None:
        raise ValueError("the model has no input signature: it was never built or called; "
                         "build it (model.build(shape) or call it once) in the function")
    shape = [None if d is None else int(d) for d in tuple(shape)]
    return [("input", [None] + shape[1:], "float32")]  # the batch it was built with is not fixed


def loss_name(loss):
    if loss is None:
        return None
    if isinstance(loss, str):
        return loss
    if isinstance(loss, (list, tuple)) and loss:
        return loss_name(loss[0])
    if isinstance(loss, dict) and loss:
        return loss_name(list(loss.values())[0])
    name = getattr(loss, "name", None) or getattr(loss, "__name__", None) or type(loss).__name__
    return str(name)


def vocabulary(tf, model):
    sizes = [int(l.input_dim) for l in all_layers(model)
             if type(l).__name__ == "Embedding" and getattr(l, "input_dim", None)]
    return min(sizes) if sizes else None


def make_labels(tf, loss, outputs, seed):
    """Labels matching the loss and the output shape; (labels, loss_fn, description)."""
    keras = tf.keras
    out = outputs[0]
    shape = [int(d) for d in out.shape]
    name = (loss or "").lower().replace(" ", "_")
    classes = shape[-1] if shape else 1
    with tf.device("/CPU:0"):
        if not name:
            if classes > 1:
                probs = bool(tf.reduce_all(out >= 0).numpy()) and \
                    abs(float(tf.reduce_mean(tf.reduce_sum(out, -1)).numpy()) - 1.0) < 1e-3
                name = "sparse_categorical_crossentropy"
                loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=not probs)
            else:
                name = "mean_squared_error"
                loss_fn = keras.losses.MeanSquaredError()
            assumed = True
        else:
            loss_fn = None
            assumed = False
        if "sparse" in name:
            labels = tf.random.stateless_uniform(shape[:-1], [seed, 7], 0, max(classes, 1),
                                                 dtype=tf.int32)
        elif "categorical" in name:
            idx = tf.random.stateless_uniform(shape[:-1], [seed, 7], 0, classes, dtype=tf.int32)
            labels = tf.one_hot(idx, classes)
        elif "binary" in name or "hinge" in name:
            labels = tf.cast(tf.random.stateless_uniform(shape, [seed, 7], 0, 2,
                                                         dtype=tf.int32), tf.float32)
        else:
            labels = tf.random.stateless_normal(shape, [seed, 7])
    if loss_fn is None:
        try:
            loss_fn = keras.losses.get(loss)
        except Exception:  # noqa: BLE001 - a loss object or an unknown name: use what Keras uses
            loss_fn = loss if callable(loss) else keras.losses.MeanSquaredError()
    return labels, loss_fn, {"loss": name, "assumed": assumed, "shape": list(labels.shape),
                             "dtype": labels.dtype.name}


def synthetic_batch(tf, model, batch, assumptions, seed):
    """Inputs from the input signature (None dimensions assumed and recorded), labels from the
    loss and the output shape. Everything is made on the CPU, nothing is downloaded."""
    specs = input_specs(tf, model)
    vocab = vocabulary(tf, model)
    inputs = []
    described = []
    with tf.device("/CPU:0"):
        for i, (name, shape, dtype) in enumerate(specs):
            concrete = []
            for axis, dim in enumerate(shape):
                if dim is not None:
                    concrete.append(dim)
                elif axis == 0:
                    concrete.append(int(batch))
                else:
                    concrete.append(ASSUMED_DIM)
                    assumptions.append({"input": name, "axis": axis, "assumed": ASSUMED_DIM,
                                        "why": "unknown (None) dimension"})
            if dtype.startswith("int") or dtype.startswith("uint"):
                top = vocab or 2
                if vocab is None:
                    assumptions.append({"input": name, "assumed": 2, "why": "integer input "
                                        "without an Embedding: values 0..1"})
                value = tf.cast(tf.random.stateless_uniform(concrete, [seed, i], 0, top,
                                                            dtype=tf.int32), dtype)
            elif dtype == "bool":
                value = tf.random.stateless_uniform(concrete, [seed, i]) > 0.5
            else:
                value = tf.cast(tf.random.stateless_normal(concrete, [seed, i]), dtype)
            inputs.append(value)
            described.append({"name": name, "signature": shape, "shape": concrete,
                              "dtype": dtype, "vocabulary": vocab if dtype.startswith("int")
                              else None})
        outputs = tf.nest.flatten(call_model(model, inputs, False))
    loss = loss_name(getattr(model, "loss", None))
    labels, loss_fn, label_info = make_labels(tf, loss, outputs, seed)
    if label_info["assumed"]:
        assumptions.append({"assumed": label_info["loss"], "why": "the model is not compiled: "
                            "loss chosen from the output shape"})
    return {"inputs": inputs, "labels": labels, "loss_fn": loss_fn, "described": described,
            "label_info": label_info, "trainable": bool(model.trainable_variables),
            "outputs": [{"shape": [int(d) for d in o.shape], "dtype": o.dtype.name}
                        for o in outputs]}
