"""Signatures of errors that are not TensorFlow's at all: the network, a proxy or a missing CA
certificate failed while pip, conda or Keras fetched a package, a dataset or weights. Named so
that they get advice about the network, and no TensorFlow finding is drawn from them."""

from __future__ import annotations

from tfdoctor.logtext.signature import Signature, sig

SIGNATURES: tuple[Signature, ...] = (
    sig("log.network-error", "read-timeout", "install",
        "a download stopped: the network did not answer in time (pip's socket read)",
        r"socket\.timeout: The read operation timed out|TimeoutError: The read operation timed out|"
        r"ReadTimeoutError: HTTPSConnectionPool\(host='(?P<host>[^'\s]{1,200})', port=\d{1,5}\): Read timed out",
        "socket.timeout: The read operation timed out", "https://github.com/rstudio/tensorflow/issues/165",
        needle="timed out", key=()),
    sig("log.network-error", "ssl-certificate", "install",
        "a download was refused: Python could not verify the server's certificate",
        r"\[SSL: CERTIFICATE_VERIFY_FAILED\] certificate verify failed(?::(?P<reason>[^(\n]{1,120}))?",
        "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate",
        "https://github.com/keras-team/keras/issues/14089",
        needle="CERTIFICATE_VERIFY_FAILED", key=()),
)
