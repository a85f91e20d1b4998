"""Ports: what the use cases need from storage, as `typing.Protocol`s (one small file each)."""
