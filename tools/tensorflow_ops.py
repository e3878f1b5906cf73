"""Write tfdoctor/knowledge/tensorflow_ops.json: the name of every op TensorFlow registers.

Maintainer tooling, run once per refresh with the Python of an environment that has TensorFlow
installed (any build: tensorflow, tensorflow-cpu, tensorflow-macos):

    ~/venvs/tf/bin/python tools/tensorflow_ops.py

`tfdoctor ops` checks the names a user types against this list. The Metal kernel table cannot
serve: it only knows ops that have a GPU kernel, so it cannot tell an op without one (Einsum)
from a typo. The list comes from TensorFlow's own op registry, read through the C API's
TF_GetAllOpList (tensorflow/c/c_api.h, bound in tensorflow.python.client.pywrap_tf_session) after
`import tensorflow`: every op a REGISTER_OP of the loaded libraries put there, internal ones
(`_FusedMatMul`) included. `tf.raw_ops` is not enough (only the ops with a generated Python
wrapper), and tensorflow.python.framework.op_def_registry looks ops up by name only.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from importlib import metadata
from pathlib import Path

OUTPUT = Path(__file__).resolve().parents[1] / "tfdoctor" / "knowledge" / "tensorflow_ops.json"
DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu", "tensorflow-macos", "tensorflow-intel")
METHOD = (
    "Every name in TensorFlow's op registry, read in a Python with that wheel installed: `import "
    "tensorflow`, then the serialized OpList that the C API's TF_GetAllOpList returns (through "
    "tensorflow.python.client.pywrap_tf_session), parsed with op_def_pb2.OpList "
    "(tools/tensorflow_ops.py). Internal ops (a leading underscore) are included, and so are "
    "odd names such as A, B and Attr that the wheel's libraries register too. It is one wheel's "
    "registry: other versions and builds (macOS arm64 among them) may register a few ops more "
    "or fewer."
)


def registered_op_names() -> list[str]:
    """The op registry of this process, after TensorFlow loaded every library it ships."""
    import tensorflow  # noqa: F401  (loads the libraries whose REGISTER_OPs fill the registry)
    from tensorflow.core.framework import op_def_pb2
    from tensorflow.python.client import pywrap_tf_session as c_api

    buffer = c_api.TF_GetAllOpList()
    try:
        op_list = op_def_pb2.OpList.FromString(c_api.TF_GetBuffer(buffer))
    finally:
        c_api.TF_DeleteBuffer(buffer)
    return sorted({op.name for op in op_list.op})


def installed_wheel() -> tuple[str, str]:
    """(distribution and version, wheel file name rebuilt from its WHEEL tag) of the TensorFlow
    this Python imports."""
    for name in DISTRIBUTIONS:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        tags = [line.split(":", 1)[1].strip() for line in (dist.read_text("WHEEL") or "").splitlines()
                if line.startswith("Tag:")]
        wheel = f"{name.replace('-', '_')}-{dist.version}-{tags[0]}.whl" if tags else ""
        return f"{name} {dist.version}", wheel
    raise SystemExit(f"none of {', '.join(DISTRIBUTIONS)} is installed in {sys.executable}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, default=OUTPUT, help=f"default: {OUTPUT}")
    args = parser.parse_args(argv)
    tensorflow, wheel = installed_wheel()
    names = registered_op_names()
    document = {
        "about": "The name of every op TensorFlow registers, sorted: what `tfdoctor ops` checks "
                 "op names against (tools/tensorflow_ops.py writes this file).",
        "tensorflow": tensorflow,
        "wheel": wheel,
        "method": METHOD,
        "read_on": datetime.date.today().isoformat(),
        "ops": names,
    }
    args.output.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"{len(names)} ops of {tensorflow} written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
