"""The archive ports: the cold tier (`cold`) and the hot tier's whole games (`hot`)."""
