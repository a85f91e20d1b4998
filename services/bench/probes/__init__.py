"""Probe scripts run INSIDE a tree under test (`python PATH`, the tree first on PYTHONPATH):
stdlib plus the tree's own public entry points only, so one script measures both trees."""
