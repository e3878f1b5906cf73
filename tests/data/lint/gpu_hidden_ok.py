# env:
import tensorflow as tf

gpus = tf.config.list_physical_devices("GPU")
tf.config.set_visible_devices(gpus[:1], "GPU")  # keeps one GPU
tf.config.set_visible_devices([], "TPU")  # hides TPUs only
with tf.device("/CPU:0"):  # one piece on the CPU, knowingly
    x = tf.random.normal((4, 4))
