"""Outbound webhooks in one place: the ports, use cases, adapters and doors of Standard Webhooks
deliveries (the message bodies' contract is `contracts/webhooks.py`).

* `ports`: `WebhookStore` (endpoints, pending deliveries, the delivery log, the dispatcher's
  checkpoint) and `WebhookTransport` (how a signed request is sent);
* `usecases/`: `dispatch` (change notices -> deliveries), `deliver` (signed sends with
  backoff), `messages` (the bodies, pure), `admin` (the operator's endpoint commands);
* `adapters/`: `redis` (with its scripts in `redis_lua`), `memory`, `http` (the httpx
  transport), wired by `services.bootstrap`;
* `doors/`: the webhooks role's process loop (`loop`) and its metrics (`meters`);
* `cli`: `scoreledger webhooks ...`.
"""
