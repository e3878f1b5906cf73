# env: tensorflow=2.19.1 keras=3 metal=1.2.0
# Every op here has a Metal kernel in tensorflow-metal 1.2.0 (gelu runs Erf, which has one).
import tensorflow as tf
from tensorflow.keras import layers

inputs = tf.keras.Input(shape=(32, 32, 3))
x = layers.Conv2D(16, 3, activation="relu")(inputs)
x = layers.MaxPooling2D()(x)
x = layers.BatchNormalization()(x)
x = layers.Flatten()(x)
x = layers.Dense(32, activation="gelu")(x)
outputs = layers.Dense(10, activation="softmax")(x)
model = tf.keras.Model(inputs, outputs)
