"""checks/log_network.py: download failures (a read that timed out, a certificate Python could
not verify) are said as the network's, with the network's fix, and no TensorFlow cause is drawn
from them (real texts: rstudio/tensorflow#165, keras-team/keras#14089)."""

from __future__ import annotations

from log_cases import LogRules, commands, one
from snapshots import apple_silicon

from tfdoctor.model import Severity

check = LogRules("log_network")


def test_a_pip_read_that_timed_out_is_the_network():
    f = one(check.diagnose(apple_silicon(), "pip_socket_timeout.txt"), "log.network-error")
    assert f.severity is Severity.INFO and "timed out" in f.title and "--timeout" in f.remediation.text


def test_an_unverified_certificate_names_pythons_certificate_installer():
    f = one(check.diagnose(apple_silicon(), "keras_get_file_ssl_certificate.txt"), "log.network-error")
    assert f.severity is Severity.INFO and "certificate" in f.title
    assert commands(f) == 'open "/Applications/Python 3.11/Install Certificates.command"'
