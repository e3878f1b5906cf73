"""The model presets of `tfdoctor probe --workload NAME`: models users report slow or wrong on
Metal, built as their tutorials build them, for the model probe (tfdoctor/inside/model/load.py), and named by
`tfdoctor probe --workload` (tfdoctor.cli.probe) and tfdoctor.gather.user_model.

Runs inside the diagnosed interpreter: standard library and tensorflow (passed in as `tf`),
Python 3.8+.
"""

from __future__ import annotations

__all__ = ["MODEL_PRESETS", "model_preset"]


MODEL_PRESETS = ("mnist-dense", "cifar-cnn", "mobilenetv2", "lstm", "attention")
"""Models users report slow or wrong on Metal, built with weights=None (nothing downloaded) and
compiled as their tutorials compile them; the model child makes their synthetic data:
mnist-dense and cifar-cnn (the TensorFlow beginner and CNN tutorials), MobileNetV2 at 224x224
(the usual transfer-learning benchmark), an Embedding + LSTM text classifier (LSTM training far
slower on the Metal GPU than on the CPU: tensorflow/tensorflow#56782) and a MultiHeadAttention
block (Dropout's stateless random ops and gelu's Erfc have no Metal kernel, nor has Einsum, which
Keras 2 uses for attention and Keras 3 turns into MatMul: reference/metal_binaries_2026-11.json)."""


def model_preset(tf, name):
    """A compiled Keras model for preset `name` (ValueError for an unknown name)."""
    keras = tf.keras
    layers = keras.layers
    if name == "mnist-dense":
        model = keras.Sequential([
            keras.Input((28, 28), name="image"), layers.Flatten(name="flatten"),
            layers.Dense(128, activation="relu", name="dense_relu"),
            layers.Dropout(0.2, name="dropout"), layers.Dense(10, name="logits")],
            name="mnist_dense")
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    elif name == "cifar-cnn":
        model = keras.Sequential([
            keras.Input((32, 32, 3), name="image"),
            layers.Conv2D(32, 3, activation="relu", name="conv1"),
            layers.MaxPooling2D(name="pool1"),
            layers.Conv2D(64, 3, activation="relu", name="conv2"),
            layers.MaxPooling2D(name="pool2"),
            layers.Conv2D(64, 3, activation="relu", name="conv3"),
            layers.Flatten(name="flatten"), layers.Dense(64, activation="relu", name="dense"),
            layers.Dense(10, name="logits")], name="cifar_cnn")
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    elif name == "mobilenetv2":
        model = keras.applications.MobileNetV2(input_shape=(224, 224, 3), weights=None,
                                               classes=1000)
        loss = "sparse_categorical_crossentropy"
    elif name == "lstm":
        tokens = keras.Input((100,), dtype="int32", name="tokens")
        x = layers.Embedding(10000, 64, name="embedding")(tokens)
        x = layers.LSTM(64, name="lstm")(x)
        out = layers.Dense(1, activation="sigmoid", name="score")(x)
        model = keras.Model(tokens, out, name="lstm_classifier")
        loss = "binary_crossentropy"
    elif name == "attention":
        seq = keras.Input((64, 128), name="sequence")
        att = layers.MultiHeadAttention(num_heads=4, key_dim=32, dropout=0.1, name="mha")(seq, seq)
        x = layers.LayerNormalization(name="norm1")(layers.Add(name="residual1")([seq, att]))
        ff = layers.Dense(256, activation="gelu", name="ff1")(x)
        ff = layers.Dropout(0.1, name="ff_dropout")(layers.Dense(128, name="ff2")(ff))
        x = layers.LayerNormalization(name="norm2")(layers.Add(name="residual2")([x, ff]))
        x = layers.GlobalAveragePooling1D(name="pool")(x)
        model = keras.Model(seq, layers.Dense(10, name="logits")(x), name="attention_block")
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    else:
        raise ValueError("unknown workload %r (known: %s)" % (name, ", ".join(MODEL_PRESETS)))
    model.compile(optimizer="adam", loss=loss)
    return model
