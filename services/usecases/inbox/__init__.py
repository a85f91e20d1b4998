"""The inbox's use cases: settling the entries of one inbox stream (`settle.Inbox`: record,
dead-letter refusals once, keep each game's stream order, ack), taking back entries no live
consumer works on (`reclaim.Reclaimer`), keeping each stream readable (`guard.StreamGuard`),
the consumer's streams, start-up and shutdown (`consumer.InboxConsumer`), waiting out transient
store faults (`transient`) and reading an entry's fields (`entries`). They drive the `InboxQueue`
and `DeadLetters` ports; the inbox door (`services.doors.ingest.inbox_app`) only hands them what
FastStream delivers.
"""
