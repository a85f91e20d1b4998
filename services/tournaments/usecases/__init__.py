"""The tournament use cases (see the package map in `services.tournaments`)."""
