"""The webhooks role (door): the dispatcher and the per-endpoint senders as one process loop."""
