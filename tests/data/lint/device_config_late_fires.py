# env:
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.layers.Dense(64, activation="relu", input_shape=(32,)),
    tf.keras.layers.Dense(1),
])
gpus = tf.config.list_physical_devices("GPU")
try:
    tf.config.experimental.set_memory_growth(gpus[0], True)  # expect: lint.device-config-late
    tf.config.set_visible_devices([], "GPU")  # expect: lint.device-config-late
except RuntimeError as e:
    print(e)
