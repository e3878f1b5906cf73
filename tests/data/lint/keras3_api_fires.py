# env: tensorflow=2.16.2 keras=3 metal=1.2.0
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras.layers.experimental import preprocessing  # expect: lint.keras2-api-on-keras3

model = keras.Sequential([keras.layers.Dense(1)])
opt = tf.keras.optimizers.legacy.Adam()  # expect: lint.keras2-api-on-keras3
sgd = keras.optimizers.SGD(lr=0.01)  # expect: lint.keras2-api-on-keras3
model.compile(optimizer=sgd, loss="mse")
checkpoint = keras.callbacks.ModelCheckpoint("best.h5", save_best_only=True)  # expect: lint.keras2-api-on-keras3
model.save("saved_model/1")  # expect: lint.keras2-api-on-keras3
scale = tf.keras.layers.experimental.preprocessing.Rescaling(1 / 255)  # expect: lint.keras2-api-on-keras3
history = model.fit_generator(iter([]), steps_per_epoch=10)  # expect: lint.keras2-api-on-keras3
