# env: tensorflow=2.15.0 keras=2 metal=1.1.0
import os

import tensorflow as tf

os.environ["TF_XLA_FLAGS"] = "--tf_xla_auto_jit=2"  # expect: lint.xla-on-metal
tf.config.optimizer.set_jit(True)  # expect: lint.xla-on-metal

model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
model.compile(optimizer="adam", loss="mse", jit_compile=True)  # expect: lint.xla-on-metal


@tf.function(jit_compile=True)  # expect: lint.xla-on-metal
def step(x):
    return x * 2
