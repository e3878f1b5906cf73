"""The speed probes: run.run_probes, called by the runtime child, or __main__.py standalone. The
workloads themselves are defined in tfdoctor/inside/shared/workloads.py."""
