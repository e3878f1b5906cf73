# env: tensorflow=2.15.0 keras=2 metal=1.1.0
import tensorflow as tf

tf.config.optimizer.set_jit(False)
model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
model.compile(optimizer="adam", loss="mse", jit_compile=False)


@tf.function
def step(x):
    return x * 2
