"""The archive's door: the archiver role's sealing passes."""
