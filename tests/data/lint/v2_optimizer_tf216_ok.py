# env: tensorflow=2.16.2 keras=3 metal=1.2.0
# Keras 3: one optimizer implementation, no legacy one and no slowdown warning.
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam()
optimizer.apply_gradients([])
