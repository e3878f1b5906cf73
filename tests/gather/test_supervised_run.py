"""tfdoctor/gather/supervised_run.py and run_output.py (`tfdoctor run`): real subprocesses that
print, fail, die of signals, ignore SIGTERM past the timeout, do not exist, leave grandchildren behind; signals forwarded;
output passed through live and recorded bounded; and a real TensorFlow run with placement logged."""

from __future__ import annotations

import io
import os
import signal
import sys
import textwrap
import threading
import time
from pathlib import Path

import jsonschema
import psutil
import pytest

from tfdoctor.logtext import keep
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.gather import run_output, supervised_run
from tfdoctor.render.schemas import snapshot_schema
from tfdoctor.sanitize.redact import Identity

PY = sys.executable


def script(tmp_path: Path, body: str, name: str = "child.py") -> list[str]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return [PY, str(path)]


def run(argv: list[str], **kwargs):
    out, err = io.BytesIO(), io.BytesIO()
    result = supervised_run.run(argv, stdout=out, stderr=err, **kwargs)
    return result, out.getvalue(), err.getvalue()


def test_output_passes_through_and_is_recorded(tmp_path):
    result, out, err = run(script(tmp_path, """
        import sys
        print("epoch 1 loss 0.5", flush=True)
        print("W tensorflow/core/framework/op_kernel.cc: warning", file=sys.stderr, flush=True)
    """))
    assert out == b"epoch 1 loss 0.5\n" and b"op_kernel.cc" in err
    assert result.facts.outcome == "exited" and result.facts.returncode == 0 and result.facts.ok
    assert b"epoch 1 loss 0.5" in result.recorded and b"op_kernel.cc" in result.recorded
    assert result.facts.wall_s > 0 and result.facts.output_bytes == len(out) + len(err)


def test_exit_status_is_kept(tmp_path):
    result, _out, _err = run(script(tmp_path, "import sys; sys.exit(3)") + ["--hf_token=hf_abcdefghijklmnopqrstuvwx"])
    assert result.facts.argv[-1] == "--hf_token=<redacted>"
    assert (result.facts.outcome, result.facts.returncode) == ("exited", 3)
    assert result.facts.ended() == "exited with status 3" and not result.facts.ok


def test_a_command_killed_by_a_signal(tmp_path):
    result, _out, _err = run(script(tmp_path, "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"))
    assert result.facts.outcome == "signal" and result.facts.signal == "SIGSEGV"


def test_a_command_that_ignores_sigterm_is_killed_after_the_grace(tmp_path):
    argv = script(tmp_path, """
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("ready", flush=True)
        time.sleep(60)
    """)
    result, out, _err = run(argv, timeout=1.0, grace=0.5)
    # killed, not waited for: the command's own end would be exit status 0 after 60 s
    assert result.facts.outcome == "timeout" and result.facts.killed_after_grace
    assert result.facts.returncode == -signal.SIGKILL and out == b"ready\n"
    assert "SIGKILL after ignoring SIGTERM" in result.facts.ended()


def test_a_command_that_stops_on_sigterm_at_the_timeout(tmp_path):
    result, _out, _err = run(script(tmp_path, "import time; time.sleep(60)"), timeout=0.5, grace=5)
    assert result.facts.outcome == "timeout" and not result.facts.killed_after_grace
    assert result.facts.returncode == -signal.SIGTERM


def test_missing_and_unexecutable_commands(tmp_path, monkeypatch):
    result, _out, _err = run(["tfdoctor-no-such-command-xyz", "--flag"])
    assert result.facts.outcome == "not-found" and "not found" in result.facts.message
    result, _out, _err = run([str(tmp_path / "nothing.py")])
    assert result.facts.outcome == "not-found"
    plain = tmp_path / "train.py"
    plain.write_text("print(1)\n", encoding="utf-8")
    result, _out, _err = run([str(plain)])
    assert result.facts.outcome == "not-executable" and "chmod +x" in result.facts.message
    result, _out, _err = run([])
    assert result.facts.outcome == "failed-to-start"
    monkeypatch.chdir(tmp_path)
    result, _out, _err = run(["train.py"])
    assert result.facts.outcome == "not-found" and "python train.py" in result.facts.message


def test_nothing_outlives_the_run(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    argv = script(tmp_path, f"""
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(120)"],
                                 stdout=sys.stdout, stderr=sys.stderr)
        open({str(pid_file)!r}, "w").write(str(child.pid))
        time.sleep(0.3)
        print("parent done", flush=True)
    """)
    result, out, _err = run(argv, timeout=30)
    grandchild = int(pid_file.read_text())
    assert out == b"parent done\n" and result.facts.outcome == "exited"
    assert result.facts.leftovers_killed >= 1 and result.facts.peak_processes >= 2
    assert not psutil.pid_exists(grandchild) or psutil.Process(grandchild).status() == psutil.STATUS_ZOMBIE


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_sigint_is_forwarded_to_the_command(tmp_path):
    ready = tmp_path / "ready"
    argv = script(tmp_path, f"""
        import signal, sys, time
        def stop(signum, frame):
            print("got SIGINT", flush=True)
            sys.exit(130)
        signal.signal(signal.SIGINT, stop)
        open({str(ready)!r}, "w").close()
        time.sleep(30)
    """)

    def interrupt() -> None:
        for _ in range(1200):  # up to a minute for the command to start, on a loaded machine
            if ready.exists():
                break
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)

    before = signal.getsignal(signal.SIGINT)  # Python's; ignored when started in the background
    sender = threading.Thread(target=interrupt)
    sender.start()
    result, out, _err = run(argv, timeout=20)
    sender.join()
    assert result.facts.forwarded == ["SIGINT"] and out == b"got SIGINT\n"
    assert result.facts.returncode == 130
    assert signal.getsignal(signal.SIGINT) is before  # ours restored


def test_peak_memory_of_the_tree(tmp_path):
    result, _out, _err = run(script(tmp_path, "import time; block = bytearray(120 * 2**20); time.sleep(0.6)"))
    assert result.facts.peak_rss_bytes and result.facts.peak_rss_bytes > 100 * 2**20


def test_recording_is_bounded_but_output_is_whole(tmp_path):
    result, out, _err = run(script(tmp_path, """
        import sys
        for i in range(40000):
            sys.stdout.write("line %06d of a long training log\\n" % i)
        print("Traceback: the end")
    """), record_limit=256 * 1024)
    assert out.count(b"\n") == 40001
    assert len(result.recorded) < 256 * 1024 + 100 and b"bytes not recorded" in result.recorded
    assert result.recorded.startswith(b"line 000000") and result.recorded.endswith(b"Traceback: the end\n")


def test_placement_lines_are_counted_not_recorded():
    recorder = run_output.Recorder(1 << 20)
    recorder.feed(b"2026-11-23 13:10:41.011674: I tensorflow/core/common_runtime/placer.cc:172] "
                  b"MatMul(MatMul) placed on: /job:localhost/replica:0/task:0/device:GPU:0\n"
                  b"Executing op Einsum in device /job:localhost/replica:0/task:0/device:CPU:0\n"
                  b"dense/Relu: (Relu): /job:localhost/replica:0/task:0/device:GPU:0\n"
                  b"x(_Arg) placed on: /job:localhost/replica:0/task:0/device:CPU:0\nloss 0.3\n")
    cpu, gpu = recorder.placements()
    assert [(p.op, p.count) for p in cpu] == [("Einsum", 1)]
    assert sorted(p.op for p in gpu) == ["MatMul", "Relu"]
    assert recorder.data() == b"loss 0.3\n"


@pytest.mark.tf
def test_real_tensorflow_with_placement_logged(tmp_path):
    from support import tfenv

    argv = [str(tfenv.tf_python()), *script(tmp_path, """
        import tensorflow as tf
        a = tf.constant([[1.0, 2.0]])
        @tf.function
        def f(x):
            return tf.nn.relu(tf.matmul(x, x, transpose_b=True))
        print("result", f(a).numpy())
        tf.config.set_visible_devices([], "GPU")
    """)[1:]]
    result, out, err = run(argv, timeout=120, placement=True, env=tfenv.tf_subprocess_env())
    facts = result.facts
    assert facts.outcome == "exited" and facts.returncode == 0, err[-2000:]
    assert b"result [[5.]]" in out
    ops = {p.op for p in facts.cpu_ops}
    assert {"MatMul", "Relu"} <= ops or {"_MklMatMul", "Relu"} <= ops, ops
    assert b"placed on:" not in result.recorded and b"placed on:" in err  # passed through, not kept
    log = keep.from_bytes(result.recorded, "run: train.py", identity=Identity("/home/x", "x", "h"))
    assert log.lines > 0 and not log.error


@pytest.mark.tf
def test_simulated_gpu_run_shows_which_ops_fell_back_to_the_cpu(tmp_path):
    """tests/simgpu plays tensorflow-metal (a PluggableDevice GPU with float32 MatMul and Conv2D
    kernels only): MatMul runs on the GPU, Einsum falls back to the CPU, and the log rule checks
    the fallback against tensorflow-metal 1.2.0's kernel table (no Einsum kernel there either)."""
    import shutil

    from simgpu import build as simgpu_build
    from snapshots import RuleModules, apple_silicon, snap
    from support import tfenv

    if simgpu_build.compiler() is None:
        pytest.skip("no C compiler for the simulated GPU")
    plugin = simgpu_build.build_plugin(tfenv.tf_python())
    env_dir = tfenv.throwaway_tf_env(tmp_path / "env")
    shutil.copy(plugin, tfenv.plugins_dir(env_dir) / plugin.name)
    argv = [str(tfenv.env_python(env_dir)), *script(tmp_path, """
        import tensorflow as tf
        a = tf.random.uniform((8, 8))
        @tf.function
        def step(x):
            return tf.einsum("ij,jk->ik", tf.matmul(x, x), x)
        print("gpus", len(tf.config.list_physical_devices("GPU")), float(tf.reduce_sum(step(a))) > 0)
    """)[1:]]
    result, out, err = run(argv, timeout=180, placement=True,
                           env={**tfenv.tf_subprocess_env(), "SIMGPU_MODE": "ok"})
    facts = result.facts
    assert facts.ok and b"gpus 1 True" in out, err[-2000:]
    assert "MatMul" in {p.op for p in facts.gpu_ops} and "Einsum" in {p.op for p in facts.cpu_ops}
    s = snap(apple_silicon())
    s.run = facts
    s.log = keep.from_bytes(result.recorded, "run: step.py", identity=Identity("/home/x", "x", "h"))
    plain = s.to_dict()
    jsonschema.validate(plain, snapshot_schema())
    assert Snapshot.from_dict(plain).run.gpu_ops == facts.gpu_ops
    found = [f for f in RuleModules("log_training").run(s) if f.code == "log.ops-on-cpu"]
    assert found and "no Metal kernel for Einsum" in found[0].title


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_a_command_that_ignores_ctrl_c_is_killed_at_the_third(tmp_path):
    ready = tmp_path / "ready"
    argv = script(tmp_path, f"""
        import signal, time
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        open({str(ready)!r}, "w").close()
        time.sleep(30)
    """)

    def interrupt() -> None:
        for _ in range(1200):  # up to a minute for the command to start, on a loaded machine
            if ready.exists():
                break
            time.sleep(0.05)
        for _ in range(3):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)

    sender = threading.Thread(target=interrupt)
    sender.start()
    result, _out, _err = run(argv, timeout=20)
    sender.join()
    assert result.facts.forwarded == ["SIGINT"] * 3
    assert result.facts.outcome == "signal" and result.facts.signal == "SIGKILL"


def test_scripts_in_the_command_are_found_for_lint(tmp_path):
    train = tmp_path / "train.py"
    train.write_text("print(1)\n", encoding="utf-8")
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text("{}", encoding="utf-8")
    argv = ["python", "-u", str(train), "--data", str(tmp_path / "missing.py"), str(notebook)]
    assert supervised_run.scripts_in(argv) == [str(train), str(notebook)]
    assert supervised_run.scripts_in(["python", "-m", "mypkg.train"]) == []
