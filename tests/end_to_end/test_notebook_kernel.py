"""`%load_ext tfdoctor` and `%tfdoctor` in a real IPython kernel, started and spoken to through
jupyter_client as a notebook server does: the report is the cell's value (HTML and text), the
kernel's own interpreter is the one diagnosed, a usage error is one line, and once the check
returns the kernel answers at once and has no child left."""

from __future__ import annotations

import re

import psutil
import pytest
from support.kernelenv import kernel_env, kernel_python

pytestmark = pytest.mark.slow
jupyter_client = pytest.importorskip("jupyter_client")

TIMEOUT_S = 180


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """A kernel of the ipykernel venv (the kernelspec registered by ipykernel itself), at 80
    columns, with the working tree's tfdoctor importable."""
    import subprocess

    from jupyter_client.manager import KernelManager

    home = tmp_path_factory.mktemp("notebook-home")
    env = kernel_env(home, COLUMNS="80")
    python = kernel_python()
    subprocess.run([str(python), "-m", "ipykernel", "install", "--user", "--name", "tf-notebook"],
                   env=env, check=True, capture_output=True)
    manager = KernelManager(kernel_name="tf-notebook")
    manager.kernel_spec_manager.kernel_dirs = [str(home / "jupyter-data" / "kernels")]
    manager.start_kernel(env=env, cwd=str(home))
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=TIMEOUT_S)
    try:
        yield manager, client, python
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def execute(client, code: str) -> dict:
    """Run a cell; its outputs by kind: stdout, stderr, result (mime bundle), error."""
    msg_id = client.execute(code)
    outputs: dict = {"stdout": "", "stderr": "", "result": None, "error": None}
    while True:
        msg = client.get_iopub_msg(timeout=TIMEOUT_S)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            outputs[content["name"]] += content["text"]
        elif kind == "execute_result":
            outputs["result"] = content["data"]
        elif kind == "error":
            outputs["error"] = f"{content['ename']}: {content['evalue']}"
        elif kind == "status" and content["execution_state"] == "idle":
            return outputs


def test_tfdoctor_magic_diagnoses_the_kernels_own_interpreter(kernel):
    manager, client, python = kernel
    assert execute(client, "%load_ext tfdoctor")["error"] is None
    cell = execute(client, "%tfdoctor")
    assert cell["error"] is None, cell
    text = cell["result"]["text/plain"]
    print(text)  # the report as the notebook shows it in text (pytest -s)
    words = " ".join(text.split())
    assert words.startswith(f"tfdoctor 0.1.0 · {python} (the notebook kernel's own interpreter)")
    assert "Diagnosis: TensorFlow is not installed (install.no-tensorflow)" in text
    assert f"tf-notebook · {python} · " in words and "the interpreter diagnosed" in words  # kernels
    assert "1 error" in text and "exit 1 (--fail-on error)" in text
    # prose at 80 columns; a command stays whole on its line, to be copied as it is
    assert max(len(line) for line in text.splitlines() if not line.lstrip().startswith("$")) <= 80
    assert "<pre" in cell["result"]["text/html"] and "install.no-tensorflow" in cell["result"]["text/html"]
    assert "importing TensorFlow in a child process" in cell["stderr"]  # progress, one line a stage
    assert "\x1b[" not in cell["stderr"]
    value = execute(client, "r = _; print(r.exit_code, type(r.report).__name__, r.to_dict()['exit_code'])")
    assert value["stdout"].split() == ["1", "Report", "1"]
    # the check has returned: no child of the kernel is left, and the kernel answers at once
    assert psutil.Process(manager.provisioner.process.pid).children(recursive=True) == []
    assert execute(client, "print('free')")["stdout"] == "free\n"


def test_tfdoctor_check_returns_the_report_as_a_value(kernel):
    _, client, python = kernel
    cell = execute(client, "import tfdoctor\nr = tfdoctor.check(no_runtime=True, fail_on='warning', format='json')\n"
                           "print(r.exit_code, r.to_dict()['snapshot']['target']['python'])\nr")
    assert cell["error"] is None, cell
    assert cell["stdout"].split() == ["1", str(python)]
    assert cell["result"]["application/json"]["schema"] == "tfdoctor-report"


@pytest.mark.parametrize("line, said", [
    ("--bogus", r"tfdoctor: error: no such option: --bogus"),
    ("--kernel nope", r"tfdoctor: error: --kernel 'nope': no such Jupyter kernel; found .*tf-notebook"),
    ("--timeout 0", r"tfdoctor: error: invalid value for '--timeout'"),
    ("--log 'unclosed", r"tfdoctor: error: No closing quotation"),
])
def test_a_usage_error_is_one_line_and_no_value(kernel, line, said):
    _, client, _ = kernel
    execute(client, "%load_ext tfdoctor")
    cell = execute(client, f"%tfdoctor {line}")
    assert cell["error"] is None and cell["result"] is None
    assert re.match(said, cell["stderr"]) and len(cell["stderr"].splitlines()) == 1, cell["stderr"]


def test_an_interrupted_check_leaves_the_kernel_free_and_nothing_running(kernel, tmp_path):
    """The kernel's interrupt (SIGINT, as the notebook's stop button sends) during a check whose
    TensorFlow import hangs (tests/faults hang: it also starts a grandchild) ends the cell, and
    the children, their grandchild and the kernel's own children are gone."""
    import time

    from faults import BY_NAME, PIDFILE_VAR, alive, make_fake_env, read_pids

    manager, client, _ = kernel
    python = make_fake_env(tmp_path, BY_NAME["hang"])
    pidfile = tmp_path / "pids"
    execute(client, f"%load_ext tfdoctor\nimport os; os.environ[{PIDFILE_VAR!r}] = {str(pidfile)!r}")
    msg_id = client.execute(f"%tfdoctor --python {python} --no-probes --timeout 300")
    deadline = time.monotonic() + TIMEOUT_S
    while not read_pids(pidfile) and time.monotonic() < deadline:  # the import is hanging
        time.sleep(0.1)
    assert read_pids(pidfile), "the hanging import never started"
    manager.interrupt_kernel()
    error = None
    while True:
        msg = client.get_iopub_msg(timeout=TIMEOUT_S)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "error":
            error = msg["content"]["ename"]
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    assert error == "KeyboardInterrupt"
    gone = time.monotonic() + 5  # the kernel may take a moment to reap what was killed
    while (any(alive(p) for p in read_pids(pidfile)) or psutil.Process(manager.provisioner.process.pid).children(
            recursive=True)) and time.monotonic() < gone:
        time.sleep(0.05)
    assert [p for p in read_pids(pidfile) if alive(p)] == []
    assert psutil.Process(manager.provisioner.process.pid).children(recursive=True) == []
    assert execute(client, "print('free')")["stdout"] == "free\n"
