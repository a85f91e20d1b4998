"""The runtime layer: how work is run and kept, apart from what the work means.

The shared process pool of replay workers and what binds a worker's life to its parent
(`pool`, `worker`), the fair bounded queue in front of it (`fairqueue`) and the caches bounded
by bytes (`sizedcache`). Use cases and doors import it; it imports no use case, door, port or
adapter (only the domain's types, for a cache's size estimates).
"""
