# env:
import time

import tensorflow as tf

a = tf.random.normal((1024, 1024))
b = tf.random.normal((1024, 1024))
tf.matmul(a, b).numpy()  # warm-up
start = time.perf_counter()
c = tf.matmul(a, b)
c.numpy()
print(f"took {time.perf_counter() - start:.4f} s")

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
t0 = time.time()
model.fit(tf.zeros((8, 4)), tf.zeros((8, 1)), epochs=1, verbose=0)
t1 = time.time()

t2 = time.time()
total = sum(range(1000))
t3 = time.time()
