"""The floor a Lambda HTTP handler is compared with: FastAPI with one route behind Mangum,
answering the list route's path with a fixed page, nothing else imported."""

from typing import Any

from fastapi import FastAPI
from mangum import Mangum

app = FastAPI()


@app.get("/workflows/executions")
def list_executions() -> dict[str, Any]:
    return {"Items": [], "NextToken": None}


handler = Mangum(app, lifespan="off")
