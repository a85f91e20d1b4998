"""Platform pieces every door shares: settings, logging, metrics, problem documents, HTTP errors,
limits and GC tuning. No game rule, no adapter and no door here."""
