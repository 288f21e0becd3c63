"""The HTTP service: one ASGI app (FastAPI), served by `wfx serve` and, in Lambda, by Mangum."""
