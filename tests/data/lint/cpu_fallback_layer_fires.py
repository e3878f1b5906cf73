# env: tensorflow=2.19.1 keras=3 metal=1.2.0
import tensorflow as tf
from tensorflow.keras import layers

inputs = tf.keras.Input(shape=(16, 32))
x = layers.MultiHeadAttention(num_heads=4, key_dim=8)(inputs, inputs)  # expect: lint.cpu-fallback-layer
x = layers.Dropout(0.1)(x)  # expect: lint.cpu-fallback-layer
x = layers.Dense(32, activation="elu")(x)  # expect: lint.cpu-fallback-layer
augment = tf.keras.Sequential([
    layers.RandomFlip("horizontal"),  # expect: lint.cpu-fallback-layer
    layers.RandomRotation(0.1),  # expect: lint.cpu-fallback-layer
])
totals = tf.math.cumsum(tf.ones((4,)))  # expect: lint.cpu-fallback-layer
