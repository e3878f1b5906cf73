# env:
import tensorflow as tf

# Set device to CPU
tf.config.set_visible_devices([], 'GPU')  # expect: lint.gpu-hidden
tf.config.experimental.set_visible_devices(devices=[], device_type="GPU")  # expect: lint.gpu-hidden
x = tf.random.normal((4, 4))
