# env:
import time

import tensorflow as tf

a = tf.random.normal((1024, 1024))
b = tf.random.normal((1024, 1024))
start = time.time()
c = tf.matmul(a, b)
print(f"took {time.time() - start:.4f} s")  # expect: lint.async-timing

layer = tf.keras.layers.Conv2D(8, 3)
t0 = time.perf_counter()
out = layer(tf.zeros((1, 32, 32, 3)))
t1 = time.perf_counter()  # expect: lint.async-timing
