"""Time to lint a 2,000-line training script (target: median under 0.5 s), in process and as a
fresh interpreter would (imports included), and to read and recognise an 8 MB log.

The script is made of realistic training code (models, tf.data, timing, device configuration)
repeated with new names until it has 2,000 lines; every rule runs (TensorFlow 2.15, Keras 2,
tensorflow-metal 1.1.0, so the environment-dependent rules and the kernel table are used).

    python benchmarks/lint_speed.py [--runs 9]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import REPO, describe, parser

BLOCK = '''
def build_{n}(units={n}):
    inputs = tf.keras.Input(shape=(32, 32, 3))
    x = tf.keras.layers.Conv2D(16, 3, activation="relu")(inputs)
    x = tf.keras.layers.Dropout(0.1)(x)
    x = tf.keras.layers.Flatten()(x)
    x = tf.keras.layers.Dense(units, activation="elu")(x)
    outputs = tf.keras.layers.Dense(10, activation="softmax")(x)
    return tf.keras.Model(inputs, outputs)


def data_{n}(x, y):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(64)
    return ds.prefetch(tf.data.AUTOTUNE)


def train_{n}(x, y):
    model = build_{n}()
    optimizer = tf.keras.optimizers.Adam(1e-3)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(32)
    start = time.time()
    for step, (bx, by) in enumerate(ds):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(by, model(bx)))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    end = time.time()
    print("epoch", end - start)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", jit_compile=False)
    model.fit(data_{n}(x, y), epochs=1, verbose=0)
    return model
'''
HEADER = "import time\n\nimport numpy as np\nimport tensorflow as tf\n\n" \
         "gpus = tf.config.list_physical_devices('GPU')\n" \
         "for gpu in gpus:\n    tf.config.experimental.set_memory_growth(gpu, True)\n"


def script(lines: int = 2000) -> str:
    text, n = HEADER, 0
    while text.count("\n") < lines:
        text += BLOCK.format(n=n)
        n += 1
    return "\n".join(text.split("\n")[:lines]) + "\n"


def main() -> None:
    args = parser(__doc__, runs=9).parse_args()
    sys.path.insert(0, str(REPO))
    from tfdoctor.lint import LintEnv, lint_paths
    from tfdoctor.logtext import keep

    env = LintEnv("2.15.0", 2, "1.1.0")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train.py"
        path.write_text(script(), encoding="utf-8")
        lint_paths([path], env)  # warm: imports, kernel table
        samples, found = [], 0
        for _ in range(args.runs):
            start = time.perf_counter()
            result = lint_paths([path], env)
            samples.append(time.perf_counter() - start)
            found = len(result.findings)
        code = ("import sys, time; t = time.perf_counter(); from tfdoctor.lint import LintEnv, lint_paths; "
                f"lint_paths([{str(path)!r}], LintEnv('2.15.0', 2, '1.1.0')); print(time.perf_counter() - t)")
        cold = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                     cwd=REPO, check=True).stdout) for _ in range(max(3, args.runs // 3))]

        logs = sorted((REPO / "tests" / "data" / "logs").glob("*.txt"))
        chunk = "".join(p.read_text(encoding="utf-8") for p in logs)
        filler = "1875/1875 [==============================] - 9s 4ms/step - loss: 0.2 - accuracy: 0.9\n"
        big = Path(tmp) / "train.log"
        with open(big, "w", encoding="utf-8") as handle:
            handle.write(chunk)
            handle.write(filler * (8 * 1024 * 1024 // len(filler)))
            handle.write(chunk)
        log_samples, matches = [], 0
        for _ in range(max(3, args.runs // 3)):
            start = time.perf_counter()
            matches = len(keep.read(big).matches)
            log_samples.append(time.perf_counter() - start)

    print(f"lint of a 2,000-line script ({found} findings, all 8 rules)")
    print(describe("lint_paths, in process", samples))
    print(describe("fresh interpreter incl. imports", cold))
    print(describe(f"keep.read (read, recognise, keep), 8 MB log ({matches} matches)", log_samples))
    verdict = "met" if statistics.median(samples) < 0.5 else "NOT met"
    print(f"target: median under 0.5 s in process: {verdict}")


if __name__ == "__main__":
    main()
