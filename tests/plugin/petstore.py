"""A small real HTTP API on 127.0.0.1 that serves its own OpenAPI document and can drift.

`drift` switches misbehaviours on: "status" makes GET /pets answer 418 (undocumented),
"field" makes GET /pets/{id} drop the required `name`. Writes need `Authorization:
Bearer <token>`; GET /whoami echoes the bearer token in its body (so cassette scrubbing of
bodies is exercised).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

PET = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "tag": {"type": "string"}},
}


def openapi_document(url: str) -> dict[str, Any]:
    json_of = lambda schema: {"application/json": {"schema": schema}}  # noqa: E731
    return {
        "openapi": "3.0.3",
        "info": {"title": "Petstore", "version": "1.0"},
        "servers": [{"url": url}],
        "paths": {
            "/pets": {
                "get": {
                    "operationId": "listPets",
                    "parameters": [
                        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 50}}
                    ],
                    "responses": {"200": {"description": "pets", "content": json_of({"type": "array", "items": PET})}},
                },
                "post": {
                    "operationId": "createPet",
                    "requestBody": {
                        "required": True,
                        "content": json_of(
                            {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
                        ),
                    },
                    "responses": {"201": {"description": "created", "content": json_of(PET)}},
                },
            },
            "/pets/{petId}": {
                "get": {
                    "operationId": "getPet",
                    "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}}],
                    "responses": {"200": {"description": "a pet", "content": json_of(PET)}},
                }
            },
        },
    }


@dataclass
class Petstore:
    url: str = ""
    token: str = "s3cret-petstore-token"
    drift: set[str] = field(default_factory=set)
    pets: dict[int, dict[str, Any]] = field(default_factory=lambda: {1: {"id": 1, "name": "rex", "tag": "dog"}})
    requests: list[str] = field(default_factory=list)


def _handler(state: Petstore) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            state.requests.append(f"GET {self.path}")
            if url.path == "/openapi.json":
                return self._send(200, openapi_document(state.url))
            if url.path == "/whoami":
                return self._send(200, {"token": self.headers.get("Authorization", "").removeprefix("Bearer ")})
            if url.path == "/pets":
                if "status" in state.drift:
                    return self._send(418, {"error": "I'm a teapot"})
                limit = int(parse_qs(url.query).get("limit", ["50"])[0])
                return self._send(200, list(state.pets.values())[:limit])
            if url.path.startswith("/pets/"):
                pet_id = int(url.path.rsplit("/", 1)[1])
                pet = dict(state.pets.get(pet_id, {"id": pet_id, "name": f"pet{pet_id}"}))
                if "field" in state.drift:
                    pet.pop("name")
                return self._send(200, pet)
            return self._send(404, {"error": "not found"})

        def do_POST(self) -> None:
            state.requests.append(f"POST {self.path}")
            if self.headers.get("Authorization") != f"Bearer {state.token}":
                return self._send(401, {"error": "unauthorized"})
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            pet = {"id": max(state.pets) + 1, "name": body.get("name", "")}
            state.pets[pet["id"]] = pet
            return self._send(201, pet)

    return Handler


@contextmanager
def running_petstore() -> Iterator[Petstore]:
    """Serve a Petstore on 127.0.0.1 (a free port) for the duration of the block."""
    state = Petstore()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def pets_spec(url: str) -> dict[str, Any]:
    """A forge spec over the Petstore, with examples for recording."""
    return {
        "name": "pets",
        "transport": {"kind": "rest", "url": url, "auth": {"kind": "bearer", "env": "PETSTORE_TOKEN"}},
        "tools": [
            {
                "name": "list_pets",
                "description": "List pets.",
                "params": [{"name": "limit", "type": "integer"}],
                "request": {"method": "GET", "path": "/pets", "query": {"limit": "limit"}},
                "examples": [{"limit": 10}],
            },
            {
                "name": "get_pet",
                "description": "Get a pet.",
                "params": [{"name": "petId", "type": "integer", "required": True}],
                "request": {"method": "GET", "path": "/pets/{petId}"},
                "examples": [{"petId": 1}],
            },
            {
                "name": "whoami",
                "description": "Who am I (echoes the credential).",
                "request": {"method": "GET", "path": "/whoami"},
                "examples": [{}],
            },
            {
                "name": "create_pet",
                "description": "Create a pet.",
                "params": [{"name": "name", "type": "string", "required": True}],
                "request": {"method": "POST", "path": "/pets", "body": {"name": "name"}},
                "write": True,
                "examples": [{"name": "tom"}],
            },
        ],
    }
