"""Code that runs inside the diagnosed interpreter.

Everything in this folder is started as a script by that interpreter, which may be any Python a
TensorFlow-on-Mac user still has (3.8 and later), so it uses the standard library only and never
imports tfdoctor (the diagnosed environment need not have tfdoctor installed).
"""
