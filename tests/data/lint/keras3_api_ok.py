# env: tensorflow=2.16.2 keras=3 metal=1.2.0
import tensorflow as tf
from tensorflow import keras

model = keras.Sequential([keras.layers.Dense(1)])
sgd = keras.optimizers.SGD(learning_rate=0.01)
model.compile(optimizer=sgd, loss="mse")
checkpoint = keras.callbacks.ModelCheckpoint("best.keras", save_best_only=True)
weights = keras.callbacks.ModelCheckpoint("best.weights.h5", save_weights_only=True)
model.save("model.keras")
model.save("model.h5")
model.export("saved_model/1")
history = model.fit(iter([]), steps_per_epoch=10)
