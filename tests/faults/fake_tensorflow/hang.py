# The import never returns, and it has started a grandchild that would outlive a careless
# parent. The grandchild's pid goes to $TFDOCTOR_FAULT_PIDFILE so the test can check it is gone.
import os
import subprocess
import sys
import time

grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
pidfile = os.environ.get("TFDOCTOR_FAULT_PIDFILE")
if pidfile:
    with open(pidfile, "a") as handle:
        handle.write("%d\n" % grandchild.pid)
time.sleep(600)
