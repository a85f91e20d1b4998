"""The benchmark harness (`make bench` = `python -m services.bench`): writes docs/benchmarks.md.

Every figure is a median with its min-max over repeats measured in one run, beside a ratio to
a baseline measured in the same run (CPU: a json.loads calibration; Redis: redis-benchmark
XADD), and beside its target (met / missed). Dedicated redis-servers are started on free ports.
"""
