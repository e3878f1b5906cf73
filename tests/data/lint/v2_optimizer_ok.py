# env: tensorflow=2.13.1 keras=2 metal=1.0.1
# The legacy optimizer in the custom loop; a v2 optimizer given to compile() (Keras 2.12+ falls
# back to the legacy one by itself on Apple silicon); a string optimizer.
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])
optimizer = tf.keras.optimizers.legacy.Adam(learning_rate=1e-3)
model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
model.compile(optimizer="adam", loss="mse")


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
