"""Signatures of running a model: ops without a Metal kernel, XLA, Metal's command buffers,
Keras 3 breaking Keras 2 code, device configuration made too late."""

from __future__ import annotations

import re

from tfdoctor.logtext import stderr
from tfdoctor.logtext.keras_names import keras2_only
from tfdoctor.logtext.signature import Fields, Signature, adds, sig, wrappable

COMPANION_OPS: tuple[tuple[str, str, str], ...] = (
    # (op name or prefix ending in ">", package, source)
    ("SentencepieceOp", "tensorflow-text", "https://github.com/tensorflow/tensorflow/issues/38597"),
    ("SentencepieceTokenizeOp", "tensorflow-text", "https://github.com/tensorflow/text (sentencepiece_tokenizer ops)"),
    ("RegexSplitWithOffsets", "tensorflow-text", "https://github.com/tensorflow/text/issues/261"),
    ("CaseFoldUTF8", "tensorflow-text", "https://github.com/tensorflow/text (normalize ops)"),
    ("NormalizeUTF8", "tensorflow-text", "https://github.com/tensorflow/text (normalize ops)"),
    ("WordpieceTokenizeWithOffsets", "tensorflow-text", "https://github.com/tensorflow/text (wordpiece ops)"),
    ("FastWordpieceTokenizeWithOffsets", "tensorflow-text", "https://github.com/tensorflow/text (fast_wordpiece ops)"),
    ("Addons>", "tensorflow-addons", "https://github.com/tensorflow/addons (custom ops are named Addons>...)"),
    ("IO>", "tensorflow-io", "https://github.com/tensorflow/io (custom ops are named IO>...)"),
)
"""Ops that live in a companion package, not in TensorFlow: "Op type not registered" for one of
them means the package is not imported, not installed, or built for another TensorFlow."""


def companion_for(op: str) -> str | None:
    for name, package, _source in COMPANION_OPS:
        if op == name or (name.endswith(">") and op.startswith(name)):
            return package
    return None


def _companion(fields: Fields) -> Fields:
    out = dict(fields)
    package = companion_for(out.get("op", ""))
    if package:
        out["companion"] = package
    return out


def _kernel(fields: Fields) -> Fields:
    """The placer names the node it could not place; its Colocation Debug Info (the op type
    listed without the device) or, from TF 2.x, its "Op:" line names the op without a kernel."""
    out = {k: v for k, v in fields.items() if k not in ("assign_op", "op_type", "op_line")}
    node = fields.get("assign_op", "")
    op = fields.get("op_type") or fields.get("op_line")
    if op:
        out["op"] = op
        if node and node.rsplit("/", 1)[-1] != op:
            out["node"] = node
    elif node:
        out["op"] = node
    out.setdefault("device", "GPU")
    return out


_WITHOUT_GPU = r"^[ \t]*(?P<op_type>[A-Z]\w*): (?:(?!GPU\b)[A-Z][A-Z_0-9]*(?:[ \t]+|$))*$"
"""A line of the placer's Colocation Debug Info, `OpType: CPU XLA_CPU ` (colocation_graph.cc
DebugInfo: each op type of the group and the device types it has kernels for), without the GPU.
Each device type ends at a space or the line's end, so a run of capitals is read one way only
(`[A-Z][A-Z_0-9]* ?` repeated splits it every way: exponential on a long word)."""
_NODE = r"(?:\{\{colocation_node [^{}\n]{0,500}\}\}|'[^'\n]{0,500}')"
"""A node the placer names, TF 2.x's {{colocation_node NAME}} or TF 1.x's 'NAME' (on one line, and
bounded, so a long run of either is scanned once)."""

_DEBUG_INFO = r"(?:(?:[^\n]*\n){1,60}?(?:" + _WITHOUT_GPU + r"|^[ \t]*Op: (?P<op_line>[A-Z]\w*)[ \t]*$))?"
"""The op without a GPU kernel, from the lines after a placer message (bounded: 60 lines)."""


def _colocated(fields: Fields) -> Fields:
    """The device type the group required (`/device:GPU:0` -> GPU) and the op that has no
    kernel for it, when the paste kept the debug info."""
    device = re.search(r"device:([A-Za-z_]+)", fields.get("required", ""))
    out = {"device": device.group(1).upper() if device else fields.get("required", "")}
    op = fields.get("op_type") or fields.get("op_line")
    return {**out, "op": op} if op else out


_TENSORFLOW_CONTEXT = re.compile(r"xla_ops\.cc|errors_impl|tensorflow|\[Op:__inference|\{\{node")


def _tensorflow_context(fields: Fields, text: str) -> bool:
    """XLA's lookup message from TensorFlow (PaddlePaddle prints a capitalised sibling)."""
    return bool(_TENSORFLOW_CONTEXT.search(text))


def _foreign(api: str):  # a small closure factory, as adds
    """The object one Keras got from another, named by its class (by its module where a paste was
    cut before the class); the variant picks the port."""
    def derive(fields: Fields) -> Fields:
        name = ".".join(part for part in (fields.get("module"), fields.get("cls")) if part)
        return {"api": api.format(name=name)}
    return derive


_FOREIGN_LAYER = "a {name} (Keras 2) in Keras 3's Sequential"
HUB_LAYER_API = _FOREIGN_LAYER.format(name="tensorflow_hub.keras_layer.KerasLayer")
"""What keras3-foreign-layer names for TF Hub's layer: the cut and the said forms name it alike."""
_HUB_LAYER = re.compile(r"\bhub\.KerasLayer\b|\btensorflow_hub\b|\bhub_layer\b")
"""TF Hub's KerasLayer in a text: `hub.KerasLayer(...)`, the module, or `hub_layer`, the name
TensorFlow's Hub tutorials give it (text_classification_with_hub)."""


def _hub_layer_near(fields: Fields, text: str) -> bool:
    return bool(_HUB_LAYER.search(text))


def _shim_name(fields: Fields) -> Fields:
    """The Keras 2 name reached through Keras 3's tf.keras, as the code wrote it (layers.experimental:
    the api of its own form, so the two merge; a paste cut before the name: the shim alone)."""
    module, name = fields.get("module", "").replace("keras._tf_keras.keras", "tf.keras", 1), fields.get("name")
    if fields.get("imported"):
        return {"api": f"{fields.get('source', 'tf.keras')}.{fields['imported']}"}
    if name == "experimental" and module.endswith(".layers"):
        return {"api": "keras.layers.experimental"}
    return {"api": f"{module}.{name}" if name else "Keras 2 API through tf.keras"}


_KERAS_PATH = r"(?:tensorflow\.)?keras(?:\.\w{1,60}){0,8}"


def _removed_name(fields: Fields) -> Fields:
    """The Keras 2 name an import error asked for, however Python worded it."""
    module = fields.get("module") or fields.get("attr_module") or fields.get("missing", "")
    name = fields.get("name") or fields.get("attr") or ""
    return {"api": f"{module}.{name}" if name else module, "module": module, "name": name,
            "path": fields.get("path", "")}


def _keras2_only(fields: Fields, _window: str) -> bool:
    """A name that Keras 2.15 has and no Keras 3 release has, in a Keras that is not Keras 2's own
    (a path through keras/api/_v2 or tf_keras is Keras 2 refusing a name of its own making)."""
    path = fields.get("path", "").replace("\\", "/")
    if "/api/_v2/" in path or "tf_keras/" in path:
        return False
    return keras2_only(fields.get("module", ""), fields.get("name", ""))


def _mlc_op(fields: Fields) -> Fields:
    """The fork's op a graph holds, however the error named it."""
    return {"sign": "ML Compute op",
            "op": fields.get("op") or fields.get("op2") or fields.get("op3") or fields.get("op4", "")}


DST_NOT_INITIALIZED = "dst-tensor-not-initialized"
"""TensorFlow's failed copy to a device: GPU memory, on a Mac Metal's, elsewhere a CUDA card's."""

SIGNATURES: tuple[Signature, ...] = (
    # Apple's 2020-21 fork (tfdoctor.knowledge.eras): its device API and ML Compute's own lines
    sig("log.mlcompute-fork", "mlcompute-api", "training",
        "code of Apple's 2020-21 ML Compute fork of TensorFlow (tensorflow_macos 0.1alpha)",
        r"from tensorflow\.python\.compiler\.mlcompute import mlcompute|mlcompute\.set_mlc_device\(",
        "from tensorflow.python.compiler.mlcompute import mlcompute",
        "https://github.com/apple/tensorflow_macos/issues/58", needle="mlc",
        derive=adds(sign="mlcompute API"), key=("sign",), outputs=("sign",)),
    sig("log.mlcompute-fork", "mlcompute-device-late", "training",
        "the fork's error for a device chosen after TensorFlow initialised",
        r"MLCompute device must be set before initialization",
        "RuntimeError: MLCompute device must be set before initialization",
        "https://github.com/apple/tensorflow_macos/issues/58", needle="MLCompute",
        derive=adds(sign="ML Compute error"), key=("sign",), outputs=("sign",)),
    sig("log.mlcompute-fork", "mlcompute-runtime", "training",
        "ML Compute's own log lines: the fork of TensorFlow 2.4 ran (tensorflow_macos 0.1alpha)",
        r"tensorflow/compiler/tf2mlcompute/\S{1,300}?\.cc:\d+\]|Compute: No MLCTrainingGraph has been found",
        "I tensorflow/compiler/tf2mlcompute/kernels/mlc_subgraph_op.cc:326] Compute: Failed in processing "
        "TensorFlow graph proposal_targets/MLCSubgraphOp_0_35",
        "https://github.com/apple/tensorflow_macos/issues/218", needle="mlc",
        derive=adds(sign="ML Compute runtime"), key=("sign",), outputs=("sign",)),
    # the fork rewrote graphs onto ML Compute ops (MLCConv2D, MLCMatMul, MLCSubgraphOp) that only
    # it registers: TFLite's converter (tensorflow/compiler/mlir/lite) and any other TensorFlow
    # meet them as unknown ops, and so does coremltools' converter ("Conversion for TF op '{op}' not
    # implemented", coremltools/converters/mil/frontend/tensorflow)
    sig("log.mlcompute-fork", "mlcompute-op", "training",
        "a graph holds the ML Compute fork's own ops (MLC...), which nothing else knows",
        r"'tf\.(?P<op>MLC[A-Z]\w{1,60})' op is neither a custom op nor a flex op|"
        r"Op type not registered '(?P<op2>MLC[A-Z]\w{1,60})'|No registered '(?P<op3>MLC[A-Z]\w{1,60})' OpKernel"
        r"|Conversion for TF op '(?P<op4>MLC[A-Z]\w{1,60})' not implemented",
        "error: 'tf.MLCMatMul' op is neither a custom op nor a flex op",
        "https://github.com/apple/tensorflow_macos/issues/133", needle="MLC",
        derive=_mlc_op, key=("op",), outputs=("sign", "op"), head=r"'tf\.(?P<op>MLC[A-Z]\w{1,60})' op is"),
    sig("log.xla-no-metal", "xla-no-compiler", "training",
        "XLA (jit_compile) was asked for on a device it has no compiler for",
        r"Could not find compiler for platform (?P<platform>[A-Za-z0-9_]+)",
        "UNIMPLEMENTED: Could not find compiler for platform METAL: NOT_FOUND: could not find "
        "registered compiler for platform METAL -- check target linkage",
        "https://github.com/NVlabs/sionna/issues/78", needle="Could not find compiler", key=("platform",),
        head=r"Could not find compiler for platform"),
    # xla/stream_executor/platform_manager.cc (multi_platform_manager.cc before): the XLA ops of
    # TF 2.11+ optimizers, jit_compile=True or Keras 3's jit_compile="auto" looking up their platform
    sig("log.xla-no-metal", "xla-no-platform-id", "training",
        "XLA (jit_compile) looked for a platform it has no backend for",
        r"could not find registered platform with id: (?P<platform_id>0x[0-9a-fA-F]+|\S+)",
        "2022-12-23 01:31:17.330784: W tensorflow/core/framework/op_kernel.cc:1830] OP_REQUIRES failed "
        "at xla_ops.cc:418 : NOT_FOUND: could not find registered platform with id: 0x12ff97980",
        "https://github.com/tensorflow/tensorflow/issues/58988", needle="registered platform with id",
        applies=_tensorflow_context, key=(), head=r"could not find registered platform with id"),
    sig("log.no-gpu-listed", "empty-gpu-list", "import",
        "TensorFlow lists no GPU (tensorflow-metal missing, not loaded, or the wrong Python)",
        # the echo follows the call, or (a report in Markdown) its own fence after a label line
        # ("the result is:", "Output:")
        r"list_physical_devices\(\s*(?:device_type\s*=\s*)?['\"]GPU['\"]\s*\)\)?[ \t]*\n"
        r"(?:[ \t]*(?:```[\w-]{0,12}|[^\n`:]{1,40}:)?[ \t]*\n){0,4}[ \t]*(?:Out\[\d+\]:[ \t]*)?\[\][ \t]*$",
        ">>> tf.config.list_physical_devices(\"GPU\")\n[]",
        "https://github.com/sun1638650145/Libraries-and-Extensions-for-TensorFlow-for-Apple-Silicon/issues/20",
        needle="list_physical_devices", key=()),
    # the tensorflow.org GPU guide's check, print("Num GPUs Available: ", len(tf.config.list_physical_devices('GPU')))
    sig("log.no-gpu-listed", "num-gpus-zero", "import",
        "TensorFlow lists no GPU (tensorflow-metal missing, not loaded, or the wrong Python)",
        r"Num GPUs Available:[ \t]*0\b(?!\.\d)",
        "Num GPUs Available:  0", "https://github.com/frankkramer-lab/MIScnn/issues/32",
        needle="Num GPUs Available", key=()),
    # tf.config.list_physical_devices() printed (the list's repr) with the CPU alone in it
    sig("log.no-gpu-listed", "cpu-only-device-list", "import",
        "TensorFlow lists no GPU (tensorflow-metal missing, not loaded, or the wrong Python)",
        r"\[PhysicalDevice\(name='/physical_device:CPU:0',[ \t]*device_type='CPU'\)\]",
        "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]",
        "https://github.com/apple/tensorflow_macos/issues/112", needle="physical_device:CPU:0", key=()),
    # op_kernel.cc CreateOpKernel: TF 1.x prints the device type bare ("for GPU devices"), TF 2.x quoted
    sig("log.no-gpu-kernel", "no-registered-opkernel", "training",
        "an op pinned to the GPU has no GPU kernel in the plugin",
        r"No registered '(?P<op>[^']+)' OpKernel for '?(?P<device>[A-Za-z_]+)'? devices",
        "NotFoundError: No registered 'RngReadAndSkip' OpKernel for 'GPU' devices compatible with "
        "node {{node RngReadAndSkip}}", "https://github.com/mrdbourke/tensorflow-deep-learning/issues/298",
        needle="OpKernel for", key=("op", "device"), head=r"No registered '(?P<op>[^']+)' OpKernel for"),
    # placer.cc + colocation_graph.cc GetDevicesForNode: TF 1.x quotes the node ('save/SaveV2'),
    # TF 2.x does not; the Colocation Debug Info and (TF 2.x) the "Op:" line follow
    sig("log.no-gpu-kernel", "cannot-assign-device", "training",
        "an op pinned to the GPU has no GPU kernel in the plugin",
        r"Cannot assign a device for operation '?(?P<assign_op>[^':\s]+)'?: Could not satisfy explicit "
        r"device specification '[^']*' because no supported kernel for (?P<device>\w+) devices[^\n]*\n?"
        + _DEBUG_INFO,
        "InvalidArgumentError: Cannot assign a device for operation loader/GeneratorDataset: Could "
        "not satisfy explicit device specification '/device:GPU:0' because no supported kernel for "
        "GPU devices is available.", "https://github.com/tensorflow/tensorflow/issues/53026",
        needle="no supported kernel", derive=_kernel, key=("op",), outputs=("op", "node", "device"),
        head=r"Cannot assign a device for operation '?(?P<assign_op>[^':\s]+)'?: Could not satisfy "
             r"explicit device specification '[^']*' because no supported kernel"),
    # colocation_graph.cc ColocateNodes: a group whose members share no device type; its Debug
    # Info lists the op type that has no GPU kernel where the others have one
    sig("log.no-gpu-kernel", "colocation-no-common-device", "training",
        "ops colocated with GPU ops have no GPU kernel in the plugin",
        rf"Cannot colocate nodes {_NODE} and {_NODE} because no device type supports both of those "
        r"nodes and the other nodes colocated with them\.?[^\n]*\n?" + _DEBUG_INFO,
        "Cannot colocate nodes 'm_0/global_norm/L2Loss' and 'm_0/gradients/m_0/cudnn_gru/CudnnRNN_grad/"
        "CudnnRNNBackprop' because no device type supports both of those nodes and the other nodes "
        "colocated with them.", "https://github.com/Arturus/kaggle-web-traffic/issues/21",
        needle="no device type supports both", derive=_kernel, key=("op",), outputs=("op", "device"),
        head=rf"Cannot colocate nodes {_NODE} and {_NODE} because no device type supports both"),
    # TensorFlow's placer (common_runtime/colocation_graph.cc): a node colocated with an op that has
    # no kernel for the group's device; the debug info lists each op type with the devices it has
    # kernels for, and the type without the GPU is the op to move
    sig("log.no-gpu-kernel", "colocated-incompatible-device", "training",
        "an op colocated with GPU-pinned nodes has no GPU kernel in the plugin",
        r"because the node (?:\{\{colocation_node [^{}\n]{0,500}\}\} )?was colocated with a group of nodes "
        r"that required incompatible device '(?P<required>[^'\n]{0,500})'[^\n]*\n?" + _DEBUG_INFO,
        "Could not satisfy explicit device specification '' because the node {{colocation_node "
        "encoder/down1/downs_0/conv1/weight/Initializer/random_uniform/RandomUniform}} was colocated "
        "with a group of nodes that required incompatible device '/device:GPU:0'.",
        "https://github.com/chychkan/DeepFaceLab_MacOS/issues/81",
        needle="was colocated with a group of nodes", derive=_colocated,
        applies=lambda fields, _around: fields.get("device") == "GPU", key=("op",),
        outputs=("op", "device"),
        # the device the group required tells a missing GPU kernel from another conflict
        head=r"because the node (?:\{\{colocation_node [^{}\n]{0,500}\}\} )?was colocated with a group of "
             r"nodes that required incompatible device '(?P<required>[^'\n]{0,500})'"),
    # the eager runtime's placement (common_runtime/eager/placement_utils.cc): an op run eagerly on
    # a device none of whose kernels it has: "Could not satisfy device specification '{device}'.
    # enable_soft_placement={0|1}. Supported device types [{types}]. All available devices [...]",
    # the op after it as "[Op:{name}]". Asked for a GPU, and kernels for other device types only
    sig("log.no-gpu-kernel", "eager-device-specification", "training",
        "an op run eagerly on the GPU has no GPU kernel in the plugin",
        r"Could not satisfy device specification '(?=[^'\n]{0,300}GPU)[^'\n]{0,300}'\. enable_soft_placement=\d\. "
        r"Supported device types \[(?:(?!GPU)[^\]\n]){0,300}\]\.?(?: All available devices \[[^\]\n]{0,2000}\]\.?)?"
        r"[ \t]{0,3}(?:\[Op:(?P<op>\w{1,200})\])?",
        "tensorflow.python.framework.errors_impl.InvalidArgumentError: Could not satisfy device specification "
        "'/job:localhost/replica:0/task:0/device:GPU:0'. enable_soft_placement=0. Supported device types [CPU]. "
        "All available devices [/job:localhost/replica:0/task:0/device:GPU:0, "
        "/job:localhost/replica:0/task:0/device:CPU:0]. [Op:StatelessRandomGetKeyCounter]",
        "https://developer.apple.com/forums/thread/759438", needle="Could not satisfy device specification",
        derive=adds(device="GPU"), key=("op",), outputs=("op", "device")),
    sig("log.no-gpu-kernel", "no-opkernel-registered", "training",
        "no kernel at all for an op with these attributes (a CUDA-only op such as CudnnRNNV3)",
        r"No OpKernel was registered to support Op '(?P<op>[^']+)'",
        "No OpKernel was registered to support Op 'CudnnRNNV3' used by {{node "
        "cond_40/then/_0/cond/CudnnRNNV3}}", "https://github.com/lewagon/data-setup/pull/137",
        needle="No OpKernel was registered", key=("op",), head=r"No OpKernel was registered to support Op"),
    sig("log.op-not-registered", "op-not-registered-in-binary", "training",
        "an op this TensorFlow does not know: a companion package missing or mismatched",
        stderr.OP_NOT_REGISTERED.regex,
        "NotFoundError: Op type not registered 'SentencepieceOp' in binary running on "
        "42c9348a7da5.", "https://github.com/tensorflow/tensorflow/issues/38597",
        needle="Op type not registered", derive=_companion, key=("op",), outputs=("op", "companion"),
        head=r"Op type not registered '(?P<op>[^']+)'"),
    sig("log.op-not-registered", "op-not-registered", "training",
        "an op this TensorFlow does not know: a companion package missing or mismatched",
        r"Op type not registered '(?P<op>[^']+)'",
        "I get the error `Op type not registered 'RegexSplitWithOffsets'`",
        "https://github.com/tensorflow/text/issues/261",
        needle="Op type not registered", derive=_companion, key=("op",), outputs=("op", "companion"),
        head=r"Op type not registered"),
    # TensorFlow's own copy to a device whose allocation failed: errors::Internal("Dst tensor is not
    # initialized.") in pluggable_device_util.cc (the PluggableDevice copy tensorflow-metal uses)
    # and in the CUDA copy alike, wrapped by the eager runtime's "Failed copying input tensor ..."
    sig("log.metal-oom", DST_NOT_INITIALIZED, "training",
        "TensorFlow could not allocate a tensor it was copying to the GPU (its memory ran out)",
        r"(?:Failed copying input tensor from (?P<source>\S{1,200}) to (?P<device>\S{1,200}) in order to run "
        r"(?P<op>[\w./-]{1,120}): )?Dst tensor is not initialized",
        "InternalError: Failed copying input tensor from /job:localhost/replica:0/task:0/device:CPU:0 to "
        "/job:localhost/replica:0/task:0/device:GPU:0 in order to run _EagerConst: Dst tensor is not initialized.",
        "https://github.com/divamgupta/stable-diffusion-tensorflow/issues/61",
        needle="Dst tensor is not initialized", derive=adds(framework="TensorFlow"), key=(),
        outputs=("source", "device", "op", "framework")),
    sig("log.metal-oom", "metal-insufficient-memory", "training",
        "Metal ran out of GPU memory executing a command buffer",
        r"Insufficient Memory \((?:00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory|IOAF code 8)\)",
        "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
        "https://github.com/ggml-org/llama.cpp/issues/9701 (Metal's own text; a llama.cpp thread)",
        needle="Insufficient Memory", key=(), head=r"Insufficient Memory \((?:00000008|IOAF)"),
    # PyTorch's aten/src/ATen/mps/MPSAllocator.mm: a Metal error of another framework, named as such
    sig("log.metal-oom", "mps-out-of-memory", "training",
        "PyTorch's MPS backend ran out of Metal memory (not TensorFlow)",
        r"MPS backend out of memory \(MPS allocated: (?P<allocated>[^,()\n]{1,60}), other allocations: "
        r"(?P<other>[^,()\n]{1,60}), max allowed: (?P<max_allowed>[^()\n]{1,60})\)",
        "RuntimeError: MPS backend out of memory (MPS allocated: 5.50 GB, other allocations: 14.76 GB, "
        "max allowed: 20.40 GB).", "https://github.com/pytorch/pytorch/issues/130112",
        needle="MPS backend out of memory", derive=adds(framework="PyTorch (MPS)"), key=(),
        outputs=("allocated", "other", "max_allowed", "framework"), head=r"MPS backend out of memory"),
    sig("log.metal-command-buffer", "command-buffer-error", "training",
        "a Metal command buffer failed: results of that step may be wrong",
        r"Error: command buffer exited with error status\.\s*\n\s*"
        + wrappable("The Metal Performance Shaders operations encoded on it may not have completed.")
        + r"\s*\n\s*Error:\s*\n\s*\(null\)\s*\n\s*"
        r"(?P<status>[^\n]*?)\s*\((?P<status_code>[^()\n]*)\)[ \t]*$(?:\n(?:.*\n){0,4}?\s*name = (?P<device>[^\n]+?)\s*$)?",
        "Error: command buffer exited with error status.\n\tThe Metal Performance Shaders operations "
        "encoded on it may not have completed.\n\tError: \n\t(null)\n\tInternal Error "
        "(0000000e:Internal Error)", "https://github.com/tensorflow/tensorflow/issues/57058",
        needle="command buffer exited", key=("status",), head=r"Error: command buffer exited with error status"),
    sig("log.optimizer-slowdown", "v2-optimizer-slow", "training",
        "Keras warns that its v2.11+ optimizer is slow on Apple silicon",
        stderr.OPTIMIZER_SLOWDOWN.regex,
        "WARNING:absl:At this time, the v2.11+ optimizer `tf.keras.optimizers.Adam` runs slowly on "
        "M1/M2 Macs, please use the legacy Keras optimizer instead, located at "
        "`tf.keras.optimizers.legacy.Adam`.", "https://github.com/tensorflow/tensorflow/issues/61092",
        needle="runs slowly on M1/M2", key=("optimizer",),
        head=r"the v2\.11\+ optimizer `(?P<optimizer>[^`]+)` runs slowly on M1/M2"),
    # Keras 2.12.0-2.13.1 optimizers.get: the legacy optimizer is used, nothing runs slowly
    sig("log.optimizer-slowdown", "v2-optimizer-fallback", "training",
        "Keras fell back to the legacy optimizer on Apple silicon by itself",
        stderr.OPTIMIZER_FALLBACK.regex,
        "WARNING:absl:There is a known slowdown when using v2.11+ Keras optimizers on M1/M2 Macs. "
        "Falling back to the legacy Keras optimizer, i.e., `tf.keras.optimizers.legacy.Adam`.",
        "https://github.com/keras-team/tf-keras/issues/35", needle="known slowdown when using",
        derive=adds(fallback="yes"), key=("legacy",), outputs=("legacy", "fallback"),
        head=r"known slowdown when using v2\.11\+ Keras optimizers on M1/M2 Macs"),
    # Keras 2.11-2.14 Model.train_step calls self.optimizer.minimize: the M1/M2 fallback left a
    # string where AdamW (which has no legacy twin) should be (keras-team/keras#18224)
    sig("log.optimizer-fallback-failed", "str-has-no-minimize", "training",
        "Keras' fallback to a legacy optimizer on Apple silicon left no optimizer",
        r"'str' object has no attribute 'minimize'",
        "AttributeError: 'str' object has no attribute 'minimize'",
        "https://github.com/keras-team/keras/issues/18224", needle="has no attribute 'minimize'", key=()),
    # Python's AttributeError naming one of Keras' optimizer classes: Keras 2.12-2.13 build the
    # optimizer of a loaded .keras model, and the M1/M2 fallback's legacy twin has no build()
    sig("log.optimizer-fallback-failed", "legacy-optimizer-has-no-build", "training",
        "a legacy Keras optimizer stood where a v2.11+ one was expected: it has no build()",
        r"'(?P<optimizer>Adadelta|Adafactor|Adagrad|Adam|AdamW|Adamax|Ftrl|Lion|Nadam|RMSprop|SGD)' "
        r"object has no attribute 'build'",
        "AttributeError: 'Adam' object has no attribute 'build'",
        "https://github.com/tensorflow/tensorflow/issues/61915", needle="has no attribute 'build'",
        key=("optimizer",)),
    # Jupyter Notebook's notification ("The kernel appears to have died. It will restart
    # automatically."; JupyterLab: "The kernel for NB appears to have died"), VS Code Jupyter's
    # ("The Kernel crashed while executing code in the current cell or a previous cell"; "the the"
    # in older releases) and jupyter_client's KernelRestarter log line: the kernel process died
    sig("log.kernel-died", "notebook-kernel-died", "training",
        "the notebook's kernel (its Python process) died; the reason is printed where it ran",
        r"[Tt]he kernel(?: for [^\n]{1,300}?)? appears to have died\. It will restart automatically"
        r"|[Tt]he Kernel crashed while executing code in the(?: the)? current cell or a previous cell"
        r"|KernelRestarter: restarting kernel \(\d{1,2}/\d{1,2}\)",
        "Kernel Restarting\nThe kernel appears to have died. It will restart automatically.",
        "https://github.com/conda-forge/tensorflow-feedstock/issues/154", needle="ernel", key=(),
        head=r"[Tt]he [Kk]ernel(?: for [^\n]{1,300}?)? (?:appears to have died|crashed while executing)"),
    sig("log.device-config-late", "devices-initialised", "training",
        "device configuration changed after TensorFlow initialised its devices (it has no effect)",
        r"(?P<what>Visible|Physical|Virtual|Logical) devices cannot be modified after being initialized",
        "RuntimeError: Visible devices cannot be modified after being initialized",
        "https://github.com/Planet-AI-GmbH/tfaip/pull/10", needle="cannot be modified", key=("what",),
        head=r"(?P<what>Visible|Physical|Virtual|Logical) devices cannot be modified"),
    sig("log.keras3-api", "keras3-legacy-optimizer", "training",
        "Keras 3 has no tf.keras.optimizers.legacy",
        r"`?keras\.optimizers\.legacy`? is not supported in Keras 3",
        "ImportError: `keras.optimizers.legacy` is not supported in Keras 3. When using "
        "`tf.keras`, to continue using a `tf.keras.optimizers.legacy` optimizer, you can install "
        "the `tf_keras` package (Keras 2) and set the environment variable "
        "`TF_USE_LEGACY_KERAS=True`", "https://github.com/amaiya/ktrain/issues/525",
        needle="is not supported in Keras 3", derive=adds(api="keras.optimizers.legacy"), key=("api",),
        outputs=("api",)),
    sig("log.keras3-api", "keras3-save-extension", "training",
        "Keras 3 saves only .keras and .h5 files (SavedModel directories through model.export)",
        r"Invalid filepath extension for saving\. Please add either a `\.keras` extension",
        "ValueError: Invalid filepath extension for saving. Please add either a `.keras` extension "
        "for the native Keras format (recommended) or a `.h5` extension.",
        "https://github.com/adriangb/scikeras/issues/314",
        needle="Invalid filepath extension", derive=adds(api="model.save"), key=("api",), outputs=("api",),
        head=r"Invalid filepath extension for saving"),
    # keras/src/saving/saving_api.py load_model: "File format not supported: filepath={filepath}.
    # Keras 3 only supports V3 `.keras` files and legacy H5 format files (`.h5` extension). Note that
    # the legacy SavedModel format is not supported by `load_model()` in Keras 3..." (3.0-3.x; some
    # releases word it "`.keras` and `.weights.h5` files, or legacy V1/V2 `.h5` files")
    sig("log.keras3-api", "keras3-load-savedmodel", "training",
        "Keras 3 loads only .keras and .h5 files: a SavedModel directory (or another file) given to load_model",
        r"File format not supported:[ \t]{0,4}\n?[ \t]{0,8}filepath=[^\n]{0,300}?\.?[ \t]{0,4}\n?[ \t]{0,8}"
        r"Keras 3 only supports",
        "ValueError: File format not supported: \nfilepath=/home/srvk/Desktop/lstm_w/lstm_word_segmentation/"
        "Models/Thai_graphclust_model4_heavy. \nKeras 3 only supports",
        "https://github.com/unicode-org/lstm_word_segmentation/issues/28", needle="File format not supported",
        derive=adds(api="load_model of a SavedModel"), key=("api",), outputs=("api",),
        head=r"File format not supported:[ \t]{0,4}\n?[ \t]{0,8}filepath="),
    sig("log.keras3-api", "keras3-checkpoint-extension", "training",
        "Keras 3's ModelCheckpoint needs a .keras path (or .weights.h5 with save_weights_only)",
        r"[Tt]he filepath provided must end in `\.(?:keras|weights\.h5)`"
        r"(?: \(Keras (?:model|weights) format\)\. Received: filepath=(?P<filepath>\S+))?",
        "ValueError: The filepath provided must end in `.keras` (Keras model format). Received: "
        "filepath=Models/02_captcha_to_text/202403291006/model.h5",
        "https://github.com/pythonlessons/mltu/issues/48",
        needle="filepath provided must end in", derive=adds(api="ModelCheckpoint"), key=("api", "filepath"),
        outputs=("api", "filepath"), head=r"[Tt]he filepath provided must end in"),
    sig("log.keras3-api", "keras3-unrecognised-argument", "training",
        "Keras 3 optimizers reject Keras 2 arguments such as lr",
        r"Argument\(s\) not recognized: \{'(?P<argument>[A-Za-z_]+)'",
        "ValueError: Argument(s) not recognized: {'lr': 0.002}",
        "https://github.com/philipperemy/keras-tcn/issues/284",
        needle="not recognized", derive=adds(api="optimizer lr"), key=("api", "argument"),
        outputs=("api", "argument"), head=r"Argument\(s\) not recognized"),
    # keras/src/layers/layer.py Layer.__init__ (and models/model.py): Keras 2 keyword arguments
    # of layers (input_length, batch_input_shape, weights...) that Keras 3 no longer takes
    sig("log.keras3-api", "keras3-layer-kwargs", "training",
        "Keras 3 rejects a Keras 2 keyword argument of a layer",
        r"Unrecognized keyword arguments passed to (?P<layer>\w+): \{'(?P<argument>\w+)",
        "ValueError: Unrecognized keyword arguments passed to Embedding: {'input_length': 500}",
        "https://github.com/keras-team/keras/issues/19282", needle="Unrecognized keyword arguments passed to",
        derive=adds(api="layer keyword arguments"), key=("layer", "argument"), outputs=("api", "layer", "argument"),
        head=r"Unrecognized keyword arguments passed to(?: (?P<layer>\w+))?"),
    sig("log.keras3-api", "keras3-fit-generator", "training",
        "Keras 3 removed fit_generator, evaluate_generator and predict_generator",
        r"object has no attribute '(?P<method>(?:fit|evaluate|predict)_generator)'",
        "AttributeError: 'Functional' object has no attribute 'fit_generator'",
        "https://github.com/kairess/fingerprint_recognition/issues/2", needle="_generator'",
        derive=adds(api="Model.fit_generator"), key=("api", "method"),
        outputs=("api", "method")),
    sig("log.keras3-api", "keras3-layers-experimental", "training",
        "Keras 3 has no layers.experimental (the preprocessing layers are in keras.layers)",
        r"module '[\w.]*\blayers' has no attribute 'experimental\b"
        r"|No module named '(?:tensorflow\.)?keras\.layers\.experimental",
        "AttributeError: module 'keras._tf_keras.keras.layers' has no attribute 'experimental'",
        "https://github.com/tensorflow/tensorflow/issues/64349", needle="experimental",
        derive=adds(api="keras.layers.experimental"), key=("api",), outputs=("api",)),
    # Python's "module M has no attribute X" (Objects/moduleobject.c) and "cannot import name X
    # from M (path)" (Python/ceval.c import_from) where M is Keras 3's tf.keras shim: the package
    # keras/_tf_keras exists in Keras 3 only (TensorFlow 2.16+ points tf.keras at it), so Keras 2
    # API reached through tf.keras failed under Keras 3 (layers.experimental, the form above, merges)
    sig("log.keras3-api", "keras3-tf-keras-shim", "training",
        "Keras 2 API reached through tf.keras, which Keras 3's shim (keras._tf_keras) lacks",
        r"AttributeError: module '(?P<module>keras\._tf_keras\.keras(?:\.\w{1,60}){0,6})' has no attribute "
        r"'(?P<name>\w{1,100})'"
        r"|cannot import name '(?P<imported>\w{1,100})' from '(?P<source>[\w.]{1,200})' "
        r"\([^)\n]{0,400}?[/\\]keras[/\\]_tf_keras[/\\]",
        "AttributeError: module 'keras._tf_keras.keras.backend' has no attribute 'learning_phase'",
        "https://github.com/shap/shap/issues/3672", needle="_tf_keras",
        derive=_shim_name, key=("api",), outputs=("api",),
        head=r"AttributeError: module 'keras\._tf_keras"),
    # CPython's import system ("No module named %R", Python/import.c) naming Keras 2's private
    # engine package: Keras 2.13-2.15 keep it at keras/src/engine (the model and layer base
    # classes), Keras 3's keras/src has no engine (models/, layers/, trainers/); before 2.13 there
    # is no keras.src at all and the message names 'keras.src' itself
    sig("log.keras3-api", "keras3-no-engine", "training",
        "Keras 3 has no keras.src.engine (Keras 2's private model and layer classes)",
        r"No module named '(?P<module>keras\.src\.engine\b[\w.]*)'",
        "ModuleNotFoundError: No module named 'keras.src.engine'",
        "https://github.com/TensorSpeech/TensorFlowASR/issues/297", needle="keras.src.engine",
        derive=adds(api="keras.src.engine"), key=("api", "module"), outputs=("api", "module")),
    # CPython's three words for a name that is not there ("cannot import name %R from %R (%S)",
    # Python/ceval.c import_from; "module %R has no attribute %R", Objects/moduleobject.c; "No
    # module named %R", importlib) naming a public Keras 2 name that no Keras 3 release has
    # (tools/keras2_only.py read them from the wheels: ImageDataGenerator, keras.preprocessing.text,
    # keras.backend's functions, layers.experimental...). TensorFlow 2.16+ installs Keras 3.
    sig("log.keras3-api", "keras3-removed-name", "training",
        "Keras 2 API that Keras 3 removed, imported by name",
        rf"cannot import name '(?P<name>\w{{1,100}})' from '(?P<module>{_KERAS_PATH})'"
        rf"(?: \((?P<path>[^)\n]{{0,400}})\))?"
        rf"|module '(?P<attr_module>{_KERAS_PATH})' has no attribute '(?P<attr>\w{{1,100}})'"
        rf"|No module named '(?P<missing>{_KERAS_PATH})'",
        "ImportError: cannot import name 'ImageDataGenerator' from 'keras.preprocessing.image' (.pyenv/versions/"
        "verix-env/lib/python3.10/site-packages/keras/api/preprocessing/image/__init__.py)",
        "https://github.com/NeuralNetworkVerification/VeriX/issues/3", needle="keras", derive=_removed_name,
        applies=_keras2_only, key=("api",), outputs=("api", "module", "name", "path")),
    sig("log.keras3-api", "keras3-kerastensor", "training",
        "Keras 3 symbolic tensors cannot go through TensorFlow functions",
        r"A KerasTensor cannot be used as input to a TensorFlow function",
        "ValueError: A KerasTensor cannot be used as input to a TensorFlow function.",
        "https://github.com/taipingeric/yolo-v4-tf.keras/issues/27", needle="KerasTensor",
        derive=adds(api="KerasTensor in a TensorFlow function"), key=("api",), outputs=("api",)),
    # Keras 3's Operation._get_node_attribute_at_index (keras/src/ops/operation.py) names the layer;
    # Keras 2's base_layer said "The layer has never been called ..." without a name, and also of
    # an "output shape", which Keras 3 layers no longer have
    sig("log.keras3-api", "keras3-never-called", "training",
        "Keras 3 defines .input/.output only for a layer called on symbolic inputs",
        r"[Tt]he layer (?!has\b)(?P<layer>[\w./-]{1,200}) has never been called and thus has no defined "
        r"(?P<attribute>input|output)\b(?![ _]shape)",
        "ValueError: The layer sequential has never been called and thus has no defined output.",
        "https://github.com/keras-team/keras/issues/20116", needle="has never been called",
        derive=adds(api="layer.input / layer.output"), key=("api", "layer"), outputs=("api", "layer", "attribute"),
        head=r"[Tt]he layer (?!has\b)(?P<layer>[\w./-]{1,200}) has never been called and thus has no defined "
             r"(?:input|output)\b(?![ _]shape)"),  # a named "output shape" is a Keras 2 patch's (TensorFlowASR)
    # Keras' HDF5 loader before TensorFlow 2.5 (tf.keras saving/hdf5_format.py, standalone Keras
    # engine/saving.py and topology.py) decodes the file's attributes as bytes; h5py 3 (Nov 2020)
    # returns them as str, and Python says "'str' object has no attribute 'decode'"
    sig("log.h5py-too-new", "keras-hdf5-decode", "training",
        "h5py 3 hands str to a Keras that decodes bytes (before TensorFlow 2.5)",
        r"(?:f\.attrs\[['\"](?P<attribute>\w{1,40})['\"]\]|(?P<config>model_config|training_config))"
        r"\.decode\(['\"]utf-?8['\"]\)[^\n]{0,10}\n(?:[^\n]{0,200}\n){0,4}?[ \t>]{0,10}(?:AttributeError: )?"
        r"'str' object has no attribute 'decode'",
        "original_keras_version = f.attrs['keras_version'].decode('utf8')\n> AttributeError: 'str' object has no "
        "attribute 'decode'",
        "https://github.com/vascofazza/indoor-outdoor-image-classifier/issues/4", needle=".decode(",
        key=()),
    # deepface and retinaface (commons/package_utils.py validate_for_keras3): their Keras 2 models
    # need tf-keras once TensorFlow ships Keras 3 (2.16+)
    sig("log.keras3-api", "keras3-requires-tf-keras", "training",
        "a package's Keras 2 models need tf-keras beside TensorFlow 2.16+",
        r"You have tensorflow (?P<tensorflow>\d[\w.+-]{0,40}) and this requires tf-keras package",
        "ValueError: You have tensorflow 2.20.0 and this requires tf-keras package.",
        "https://github.com/jordoh/ComfyUI-Deepface/issues/8", needle="requires tf-keras",
        derive=adds(api="a package's Keras 2 models"), key=("api",), outputs=("api", "tensorflow"),
        head=r"You have tensorflow (?P<tensorflow>\d[\w.+-]{0,40}) and this requires tf-keras"),
    # Keras 2 asked for and not installed: Python's "No module named 'tf_keras'" (a package that
    # imports tf-keras for its Keras 2 models: tensorflow-probability 0.24+, deepface, transformers)
    # and TensorFlow's own KerasLazyLoader (tensorflow/python/util/lazy_loader.py) warning when
    # TF_USE_LEGACY_KERAS asks tf.keras for tf_keras; Keras 2 beside TensorFlow 2.16+ is tf-keras
    sig("log.keras3-api", "keras3-no-tf-keras", "training",
        "Keras 2 (tf-keras) was asked for and is not installed",
        r"No module named (?:'tf_keras'|\"tf_keras\"|tf_keras(?![\w.'\"]))"
        r"|Your environment has TF_USE_LEGACY_KERAS set to True, but you do not have the tf_keras package installed",
        "WARNING:tensorflow:Your environment has TF_USE_LEGACY_KERAS set to True, but you do not have the tf_keras "
        "package installed. You must install it in or", "https://github.com/huggingface/transformers/pull/40391",
        needle="tf_keras", derive=adds(api="tf-keras, not installed"), key=("api",), outputs=("api",),
        head=r"Your environment has TF_USE_LEGACY_KERAS set to True, but you do not have the tf_keras"),
    # transformers 4.41+ (activations_tf.py, modeling_tf_utils.py): its TensorFlow models import
    # tf_keras first and refuse a Keras 3 `keras`
    sig("log.keras3-api", "keras3-transformers", "training",
        "transformers' TensorFlow models refuse Keras 3",
        r"Your currently installed version of Keras is Keras 3, but this is not yet supported in Transformers",
        "ValueError: Your currently installed version of Keras is Keras 3, but this is not yet supported in "
        "Transformers. Please install the backwards-compatible tf-keras package with `pip install tf-keras`.",
        "https://github.com/huggingface/transformers/issues/36410", needle="version of Keras is Keras 3",
        derive=adds(api="transformers' TensorFlow models"), key=("api",), outputs=("api",),
        head=r"Your currently installed version of Keras is Keras 3"),
    # Two Kerases in one program (TensorFlow 2.16+ ships Keras 3, while tf-keras, tensorflow_hub's
    # KerasLayer and transformers' TensorFlow models are Keras 2): one Keras is handed another's
    # object and, checking with isinstance, rejects it. Keras 3's Sequential.add
    # (keras/src/models/sequential.py) rejects any object that is not its own Layer, so a class
    # from outside `keras` there is another Keras's layer.
    sig("log.keras3-api", "keras3-foreign-layer", "training",
        "a Keras 2 layer (tf-keras, tensorflow_hub.KerasLayer, ...) added to a Keras 3 Sequential",
        r"Only instances of `keras\.Layer` can be added to a Sequential model\. Received: "
        r"<(?P<module>(?!keras\.|__main__\.|builtins\.)[A-Za-z_]\w{0,60}(?:\.\w{1,60}){0,12})\."
        r"(?P<cls>\w{1,100}) object at 0x",
        "ValueError: Only instances of `keras.Layer` can be added to a Sequential model. Received: "
        "<tensorflow_hub.keras_layer.KerasLayer object at 0x28ac6d4d0> (of type <class "
        "'tensorflow_hub.keras_layer.KerasLayer'>)",
        "https://github.com/tensorflow/tensorflow/issues/65419", needle="can be added to a Sequential model",
        derive=_foreign(_FOREIGN_LAYER), key=("api",), outputs=("api",),
        head=r"Only instances of `keras\.Layer` can be added to a Sequential model\. Received: "
             r"<(?P<module>(?!keras\.|__main__\.|builtins\.)[A-Za-z_]\w{0,60}(?:\.\w{1,60}){0,12})\.\w"),
    # The same refusal cut before what it received (the paste ends at "Received:", or inside the
    # word), where the text builds the model with TF Hub's KerasLayer: tensorflow_hub makes it a
    # tf-keras (Keras 2) layer where tf.keras is Keras 3 (tensorflow_hub/keras_layer.py), the
    # object the cut took. Received and named, the variant above reads it.
    sig("log.keras3-api", "keras3-hub-layer-cut", "training",
        "TF Hub's KerasLayer (Keras 2) refused by Keras 3's Sequential, the paste cut before the object",
        r"Only instances of `keras\.Layer` can be added to a Sequential model\.(?![ \t]{0,3}Received:[ \t]{0,3}<)",
        "----> 3 classifier = tf.keras.Sequential([\n"
        "      4     hub.KerasLayer(classifier_model, input_shape=IMAGE_SHAPE+(3,))\n"
        "      5 ])\n\n1 frames\n"
        "/usr/local/lib/python3.10/dist-packages/keras/src/models/sequential.py in add(self, layer, rebuild)\n"
        "     94                 layer = origin_layer\n"
        "     95         if not isinstance(layer, Layer):\n"
        "---> 96             raise ValueError(\n"
        "     97                 \"Only instances of `keras.Layer` can be \"\n"
        "     98                 f\"added to a Sequential model. Received: {layer} \"\n\n"
        "ValueError: Only instances of `keras.Layer` can be added to a Sequential model.",
        "https://github.com/tensorflow/tensorflow/issues/83279", needle="can be added to a Sequential model",
        applies=_hub_layer_near, derive=adds(api=HUB_LAYER_API), key=("api",), outputs=("api",)),
    # every Keras's get() of an optimizer, loss, metric, activation, initializer, regularizer or
    # constraint ("Could not interpret {kind} identifier: {identifier}") refuses an instance of
    # another Keras's class: an object of the layouts of the Keras 3 years (keras.src: Keras 2.13+
    # and 3; tf_keras) refused means two of them met (Keras 3's optimizer in tf-keras' compile)
    sig("log.keras3-api", "keras3-foreign-object", "training",
        "an optimizer (loss, metric...) of one Keras handed to another (Keras 3 and tf-keras)",
        r"Could not interpret (?P<kind>optimizer|loss function|loss|metric function|metric|activation function"
        r"|initializer|regularizer|constraint) identifier: <(?P<module>(?:keras\.src|tf_keras)(?:\.\w{1,60}){0,12})"
        r"\.(?P<cls>\w{1,100}) object at 0x",
        "ValueError: Could not interpret optimizer identifier: <keras.src.optimizers.legacy.adam.Adam object at "
        "0x78ac23a95ab0>", "https://github.com/amaiya/ktrain/issues/529", needle="Could not interpret",
        derive=_foreign("a {name} handed to another Keras"), key=("api",), outputs=("api",),
        head=r"Could not interpret (?:optimizer|loss function|loss|metric function|metric|activation function"
             r"|initializer|regularizer|constraint) identifier: <(?P<module>(?:keras\.src|tf_keras)(?:\.\w{1,60}){0,12})"
             r"\.\w"),
)
