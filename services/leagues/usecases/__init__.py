"""The league use cases (see the package map in `services.leagues`)."""
