# env:
import tensorflow as tf

print(tf.config.list_logical_devices("GPU"))
gpus = tf.config.list_physical_devices("GPU")
tf.config.set_logical_device_configuration(  # expect: lint.device-config-late
    gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=1024)])
