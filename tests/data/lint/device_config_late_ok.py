# env:
import tensorflow as tf

gpus = tf.config.list_physical_devices("GPU")
if gpus:
    try:
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
    except RuntimeError as e:
        print(e)
model = tf.keras.Sequential([
    tf.keras.layers.Dense(64, activation="relu", input_shape=(32,)),
    tf.keras.layers.Dense(1),
])


def configure():
    tf.config.set_visible_devices(gpus[:1], "GPU")  # its own scope: called before anything else
