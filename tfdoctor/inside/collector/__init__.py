"""The collector: the static facts of the diagnosed interpreter (__main__.py runs it)."""
