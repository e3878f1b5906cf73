"""What `tfdoctor fix` does about each kind of finding, for a rule to declare with its code
(`fix_answer=` in tfdoctor.model.rule): one of the answers below, or a FixAnswer of its own.

fix reads the declaration from the findings of the report (tfdoctor.fix.plan): a finding whose
code is declared answered goes into the plan's `answers`, any other into `unanswered`.
tests/fix/test_answers.py fails for a rule that declares nothing, so no new rule is forgotten.
"""

from __future__ import annotations

from tfdoctor.model import FixAnswer

GOAL_INSTALLED = FixAnswer(True, "the plan's install step: fix's goal (the Python, TensorFlow, "
                           "tensorflow-metal and Keras that go together here) installed in a new "
                           "environment, or with --in-place in the diagnosed one")
ARM64_PYTHON_FIRST = FixAnswer(True, "the goal installed from an arm64 Python; where there is none, "
                               "the plan stops at the step only the user can take first (an arm64 "
                               "Python, an osx-arm64 conda environment) and prints it")
NEWER_MACOS_OR_PYTHON_FIRST = FixAnswer(True, "the goal installed; where no goal fits this macOS or "
                                        "Python, the plan stops at the step only the user can take "
                                        "first (a newer macOS, another Python) and prints it")

NOTHING_WRONG = FixAnswer(False, "it says nothing is wrong")
ABOUT_THE_FACTS = FixAnswer(False, "it is about what tfdoctor could read or measure (or its own rules "
                            "and knowledge), not about what is installed")
ABOUT_THE_MACHINE = FixAnswer(False, "it is about the machine or container TensorFlow runs on, which "
                              "no environment changes")
ABOUT_THE_LOG = FixAnswer(False, "it diagnoses an error text, which may come from another "
                          "environment: fix answers the findings about the diagnosed environment's "
                          "own facts")
ABOUT_THE_CODE = FixAnswer(False, "it is about the user's own code or model, which fix does not change")
ABOUT_OTHER_INTERPRETERS = FixAnswer(False, "it is about another interpreter (a Jupyter kernel's, the "
                                     "editor's, a new terminal's), not the diagnosed environment")
OUTSIDE_THE_GOAL = FixAnswer(False, "it is about packages or plugins the goal does not decide (the goal "
                             "decides Python, TensorFlow, tensorflow-metal and Keras): the finding's "
                             "advice says what to change")
CAUSE_NOT_KNOWN = FixAnswer(False, "its cause is not known to be what the goal decides: the finding's "
                            "evidence and advice say where to look")
A_SYMPTOM = FixAnswer(False, "it is a symptom: fix answers its causes, the findings that explain it")
MEASURED_ON_THE_GPU = FixAnswer(False, "it is how TensorFlow measured on this machine's GPU, which no "
                                "install is known to change")
