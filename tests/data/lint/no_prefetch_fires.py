# env:
import numpy as np
import tensorflow as tf

x = np.zeros((100, 4), "float32")
y = np.zeros((100,), "float32")
train = tf.data.Dataset.from_tensor_slices((x, y))
train = train.shuffle(100).batch(32)
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.fit(train, epochs=2)  # expect: lint.no-prefetch


def gen():
    yield np.zeros(4, "float32")


stream = tf.data.Dataset.from_generator(gen, output_types=tf.float32)
for step, batch in enumerate(stream.take(10)):  # expect: lint.no-prefetch
    model.train_on_batch(batch, np.zeros(1))
