# env: tensorflow=2.13.1 keras=2 metal=1.0.1
import tensorflow as tf
from tensorflow.keras import optimizers

model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])
optimizer = optimizers.Adam(learning_rate=1e-3)  # expect: lint.v2-optimizer-on-metal
other = tf.keras.Model()
other.compile(optimizer=tf.keras.optimizers.AdamW(), loss="mse")  # expect: lint.v2-optimizer-on-metal


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
