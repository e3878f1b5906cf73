# env: tensorflow=2.15.0 keras=2
# Without tensorflow-metal, XLA compiles for the CPU: nothing to say.
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
