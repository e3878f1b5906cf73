# env: tensorflow=2.11.0 keras=2 metal=0.7.0
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])
model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")  # expect: lint.v2-optimizer-on-metal
