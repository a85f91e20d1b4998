"""The archive use cases: sealing and the reads over both tiers."""
