"""Raw ASGI pieces shared by the HTTP doors (query, push): lean routes ahead of FastAPI."""
