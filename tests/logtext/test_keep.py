"""tfdoctor/logtext/keep.py: what a kept log says of the whole text, beyond its matches."""

from __future__ import annotations

import pytest

from tfdoctor.logtext import keep
from tfdoctor.sanitize.redact import Identity

WHO = Identity(home="/Users/ada", user="ada", host="mac")


@pytest.mark.parametrize("text", [
    'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n',
    "tensorflow.python.framework.errors_impl.InternalError: Failed copying input tensor\n",
    "zsh: segmentation fault  python train.py\n",
    "libc++abi.dylib: terminating with uncaught exception of type NSException\nAbort trap: 6\n",
    "Process finished with exit code 134 (interrupted by signal 6: SIGABRT)\n",
    "The kernel appears to have died. It will restart automatically.\n",
    "Like #50 I also get an error due to an exception `NSInvalidArgumentException`.\n",
    "W tensorflow/core/framework/op_kernel.cc:1775] OP_REQUIRES failed at mlc_loss_ops.cc:106 : Internal: "
    "Cannot execute MLCTrainingGraph forward\n",
    "OP_REQUIRES failed at conv_ops.cc:1106 : NOT_FOUND: No algorithm worked!\n",
    "-" * 75 + "\nInternalError\n[...]\n",
    "# training on GPU is eating up all memory until even the ssd is full\n",  # a writer's words
    "Memory leak when calling model.predict in a loop\n",
    "Python quit unexpectedly while using the _pywrap_tensorflow_internal.so plug-in.\n",
    "The notebook crashes at model.fit\n",
    "it ran out of memory after 3 epochs\n",
])
def test_a_text_that_shows_something_failing_says_so(text):
    assert keep.from_bytes(text.encode(), "posted.md", identity=WHO).shows_failure


@pytest.mark.parametrize("text", [
    "Epoch 1/10\n1875/1875 [==============================] - 9s 4ms/step - loss: 0.2 - error_rate: 0.1\n",
    "tensorflow-macos 2.9.0\ntensorflow-metal 0.5.0\nProcess finished with exit code 0\n",
    "How do I choose between errors and exceptions in my model code?\n",
    "NSExceptionHandler and NSExceptional are other names.\n",
    "W tensorflow/core/framework/op_kernel.cc:1745] OP_REQUIRES failed at iterator_ops.cc:1208 : "
    "OUT_OF_RANGE: End of sequence\n",
    "OP_REQUIRES failed at iterator_ops.cc:941 : Out of range: End of sequence\n",
    "-" * 75 + "\nEpoch 1/10\n",
    "Memory usage stays at 4 GB; all the memory I need.\n",
    "Crash reporting is off; it uses the leaky ReLU.\n",
])
def test_a_setup_a_question_or_a_benchmark_shows_no_failure(text):
    assert not keep.from_bytes(text.encode(), "posted.md", identity=WHO).shows_failure


@pytest.mark.parametrize(("text", "notebook"), [
    ("<ipython-input-1-64156d691fe5> in <module>\n----> 1 import tensorflow as tf\n", True),
    ("Cell In[3], line 1\n----> 1 import tensorflow as tf\n", True),
    ("In [1]: import tensorflow as tf\n", True),
    ("It fails in JupyterLab.\n", True),
    ("python -m ipykernel install --user --name tf\n", True),
    ('File "train.py", line 1, in <module>\n', False),
    ("My notebook is a ThinkPad.\n", False),
])
def test_a_text_from_a_jupyter_notebook_says_so(text, notebook):
    assert keep.from_bytes(text.encode(), "posted.md", identity=WHO).runs_in_notebook is notebook


@pytest.mark.parametrize(("text", "elsewhere"), [
    ("In a python prompt I can `import tensorflow`, not in the notebook.\n", True),
    ("We could import tf from the shell.\n", True),
    ("import tensorflow as tf works fine from python.\n", True),
    ("It works fine in the terminal.\n", True),
    ("I can't import tensorflow anywhere.\n", False),
    ("I cannot import tensorflow.\n", False),
    ("Can I import tensorflow in a notebook?\n", False),
])
def test_a_writer_who_says_tensorflow_imports_somewhere_says_so(text, elsewhere):
    assert keep.from_bytes(text.encode(), "posted.md", identity=WHO).imports_elsewhere is elsewhere
