"""Which TensorFlow ops a Keras layer, activation or TensorFlow function runs, for the kernel check.

Only what a rule needs: the ops whose absence from tensorflow-metal's kernel table
(tfdoctor/knowledge/kernels.py, read from the plugin binaries) sends the work to the CPU. Each entry names
where the op comes from; `cpu_fallback_layer` asks the kernel table of the installed plugin
whether those ops have a GPU kernel, so nothing here claims what the plugin lacks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OpUse:
    ops: tuple[str, ...]
    why: str
    """Where the ops come from (source file or report)."""
    heavy: bool = False
    """The op carries the layer's compute (a matmul, a convolution): on the CPU it costs a lot."""


_STATELESS_UNIFORM = ("StatelessRandomUniformV2", "StatelessRandomGetKeyCounter")
_RANDOM_WHY = ("Keras draws the noise with TensorFlow's stateless random ops (keras/src/backend/"
               "tensorflow/random.py; Apple developer forums thread 759438)")
_GEOMETRIC_WHY = ("the random transform is applied with ImageProjectiveTransformV3 "
                  "(tf.raw_ops.ImageProjectiveTransformV3 in keras image_utils / backend image.affine_transform)")

LAYERS: dict[str, OpUse] = {
    "MultiHeadAttention": OpUse(("Einsum",), "EinsumDense and the attention scores use tf.einsum "
                                "(keras/src/layers/attention/multi_head_attention.py)", heavy=True),
    "EinsumDense": OpUse(("Einsum",), "tf.einsum (keras/src/layers/core/einsum_dense.py)", heavy=True),
    "Conv3D": OpUse(("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"),
                    "tf.nn.conv3d and its gradients", heavy=True),
    "Conv3DTranspose": OpUse(("Conv3DBackpropInputV2", "Conv3D"), "tf.nn.conv3d_transpose", heavy=True),
    "MaxPooling3D": OpUse(("MaxPool3D", "MaxPool3DGrad"), "tf.nn.max_pool3d"),
    "MaxPool3D": OpUse(("MaxPool3D", "MaxPool3DGrad"), "tf.nn.max_pool3d"),
    "AveragePooling3D": OpUse(("AvgPool3D", "AvgPool3DGrad"), "tf.nn.avg_pool3d"),
    "AvgPool3D": OpUse(("AvgPool3D", "AvgPool3DGrad"), "tf.nn.avg_pool3d"),
    "Dropout": OpUse(_STATELESS_UNIFORM, _RANDOM_WHY),
    "SpatialDropout1D": OpUse(_STATELESS_UNIFORM, _RANDOM_WHY),
    "SpatialDropout2D": OpUse(_STATELESS_UNIFORM, _RANDOM_WHY),
    "SpatialDropout3D": OpUse(_STATELESS_UNIFORM, _RANDOM_WHY),
    "AlphaDropout": OpUse(_STATELESS_UNIFORM, _RANDOM_WHY),
    "GaussianDropout": OpUse(("StatelessRandomNormalV2", "StatelessRandomGetKeyCounter"), _RANDOM_WHY),
    "GaussianNoise": OpUse(("StatelessRandomNormalV2", "StatelessRandomGetKeyCounter"), _RANDOM_WHY),
    "RandomFlip": OpUse(_STATELESS_UNIFORM, _RANDOM_WHY),
    "RandomContrast": OpUse(_STATELESS_UNIFORM, _RANDOM_WHY),
    "RandomBrightness": OpUse(_STATELESS_UNIFORM, _RANDOM_WHY),
    "RandomCrop": OpUse(_STATELESS_UNIFORM, _RANDOM_WHY),
    "RandomRotation": OpUse(_STATELESS_UNIFORM + ("ImageProjectiveTransformV3",),
                            _RANDOM_WHY + "; " + _GEOMETRIC_WHY),
    "RandomZoom": OpUse(_STATELESS_UNIFORM + ("ImageProjectiveTransformV3",),
                        _RANDOM_WHY + "; " + _GEOMETRIC_WHY),
    "RandomTranslation": OpUse(_STATELESS_UNIFORM + ("ImageProjectiveTransformV3",),
                               _RANDOM_WHY + "; " + _GEOMETRIC_WHY),
    "ELU": OpUse(("Elu", "EluGrad"), "tf.nn.elu"),
}
"""Keras layer class name -> the ops it runs that matter here."""

ACTIVATIONS: dict[str, OpUse] = {
    "elu": OpUse(("Elu", "EluGrad"), "keras activations.elu -> tf.nn.elu"),
    "selu": OpUse(("Selu", "SeluGrad"), "keras activations.selu -> tf.nn.selu"),
    "softplus": OpUse(("Softplus", "SoftplusGrad"), "keras activations.softplus -> tf.math.softplus"),
    "softsign": OpUse(("Softsign", "SoftsignGrad"), "keras activations.softsign -> tf.nn.softsign"),
    "mish": OpUse(("Softplus", "SoftplusGrad"), "keras activations.mish = x * tanh(softplus(x))"),
}
"""Activation name (string or function name) -> ops."""

FUNCTIONS: dict[str, OpUse] = {
    "tensorflow.einsum": OpUse(("Einsum",), "tf.einsum", heavy=True),
    "tensorflow.linalg.einsum": OpUse(("Einsum",), "tf.einsum", heavy=True),
    "tensorflow.cumsum": OpUse(("Cumsum",), "tf.math.cumsum"),
    "tensorflow.math.cumsum": OpUse(("Cumsum",), "tf.math.cumsum"),
    "tensorflow.nn.conv3d": OpUse(("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"),
                                  "tf.nn.conv3d", heavy=True),
    "tensorflow.math.erfc": OpUse(("Erfc",), "tf.math.erfc"),
    "tensorflow.nn.elu": ACTIVATIONS["elu"],
    "tensorflow.nn.selu": ACTIVATIONS["selu"],
    "tensorflow.nn.softplus": ACTIVATIONS["softplus"],
    "tensorflow.math.softplus": ACTIVATIONS["softplus"],
    "tensorflow.nn.softsign": ACTIVATIONS["softsign"],
    "tensorflow.math.softsign": ACTIVATIONS["softsign"],
    "tensorflow.random.stateless_uniform": OpUse(_STATELESS_UNIFORM, "tf.random.stateless_uniform"),
    "tensorflow.random.stateless_normal": OpUse(("StatelessRandomNormalV2", "StatelessRandomGetKeyCounter"),
                                                "tf.random.stateless_normal"),
}
"""TensorFlow function (canonical dotted name) -> ops."""
