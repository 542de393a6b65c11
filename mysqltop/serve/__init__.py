"""`mysqltop serve`'s HTTP side: the endpoint (endpoint.py), who may hold its connections
(slots.py), basic auth and its rate limit (web_config.py, auth_gate.py), and the servers /probe
may address (targets.py)."""
