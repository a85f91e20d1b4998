"""The projector: shard feeds -> per-game standings, ledgers and checkpoints (exactly-once effect).

Public: `create_projector_app(settings)`, `run_projector(settings)` (async context manager),
`Projector` (the batch-applying core).
"""

from services.projector.app import build_projector, create_projector_app, run_projector
from services.projector.projector import Projector

__all__ = ["Projector", "build_projector", "create_projector_app", "run_projector"]
