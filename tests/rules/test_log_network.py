"""checks/log_network.py: download failures (a read that timed out, a certificate Python could
not verify, an index page pip could not fetch) are said as the network's, with the network's fix,
and no TensorFlow cause is drawn from them (real texts: rstudio/tensorflow#165,
keras-team/keras#14089, apple/turicreate#631, tensorflow/tensorflow#70901, psf/requests#4607)."""

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


def test_an_index_page_pip_could_not_fetch_over_old_tls_names_pip_s_upgrade():
    # apple/turicreate#631: pip 9 whose OpenSSL speaks TLS 1.0, refused by PyPI since April 2018
    f = one(check.diagnose(apple_silicon(), "pip_index_unreachable_tls.txt"), "log.network-error")
    assert f.severity is Severity.INFO and "pypi.python.org" in f.title and "TLS" in f.title
    assert commands(f) == "curl https://bootstrap.pypa.io/get-pip.py | /Users/ada/venvs/tf/bin/python"


def test_the_certificate_pip_gives_as_its_reason_is_one_finding():
    # tensorflow/tensorflow#70901: the certificate error is pip's reason for the page, said once
    f = one(check.diagnose(apple_silicon(), "pip_index_unreachable_certificate.txt"), "log.network-error")
    assert "certificate could not be verified" in f.title and f.evidence["log_url"].endswith("/tensorflow-1-12-0/")


def test_retries_through_a_proxy_name_the_proxy():
    # psf/requests#4607: urllib3's retry warnings, each broken by ProxyError
    f = one(check.diagnose(apple_silicon(), "pip_retrying_proxy.txt"), "log.network-error")
    assert "through the proxy" in f.title and "HTTPS_PROXY" in f.remediation.text

