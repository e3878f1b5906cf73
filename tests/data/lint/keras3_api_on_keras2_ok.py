# env: tensorflow=2.15.0 keras=2 metal=1.1.0
# The same Keras 2 code is right where tf.keras is Keras 2.
import tensorflow as tf

opt = tf.keras.optimizers.legacy.Adam(lr=0.001)
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.save("saved_model/1")
scale = tf.keras.layers.experimental.preprocessing.Rescaling(1 / 255)
