"""The rule catalogue: every rule id the service can answer with, per event type and per route,
found from the code; `make schemas` writes it to contracts/rules.json and `make docs` to the
rule catalogue page."""
