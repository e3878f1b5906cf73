"""tfdoctor: diagnose TensorFlow on Apple silicon, and prove the GPU really helps."""

__version__ = "0.1.0"


def check(**options):
    """Diagnose this Python (a notebook kernel's own) as `tfdoctor check` does, from inside it;
    the keywords are check's options. See tfdoctor.notebook."""
    from tfdoctor.notebook import check as check_here

    return check_here(**options)


def load_ipython_extension(ipython):
    """`%load_ext tfdoctor`: the %tfdoctor line magic (tfdoctor.notebook)."""
    from tfdoctor.notebook import load_ipython_extension as load

    load(ipython)
