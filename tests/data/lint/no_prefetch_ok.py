# env:
import numpy as np
import tensorflow as tf

x = np.zeros((100, 4), "float32")
y = np.zeros((100,), "float32")
train = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(100).batch(32)
train = train.prefetch(tf.data.AUTOTUNE)
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.fit(train, epochs=2)
model.fit(x, y, epochs=2)  # NumPy arrays: Keras builds its own pipeline

samples = tf.data.Dataset.from_tensor_slices(x)
for sample in samples.take(3):  # looking at a few samples is not training
    print(sample)
