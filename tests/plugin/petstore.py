"""A small real HTTP API on 127.0.0.1 that serves its own OpenAPI document and can drift.

`drift` switches misbehaviours on: "status" makes GET /pets answer 418 (undocumented),
"field" makes GET /pets/{id} drop the required `name`. Writes need `Authorization:
Bearer <token>`; GET /whoami echoes the bearer token in its body (so cassette scrubbing of
bodies is exercised).
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.upstream import Received, Reply, Upstream, serving

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
class Petstore(Upstream):
    """The shared recording upstream (tests/upstream.py), answering as the Petstore."""

    token: str = "s3cret-petstore-token"
    drift: set[str] = field(default_factory=set)
    pets: dict[int, dict[str, Any]] = field(default_factory=lambda: {1: {"id": 1, "name": "rex", "tag": "dog"}})
    keep_alive: bool = False  # HTTP/1.0, a connection per request, as before

    def __post_init__(self) -> None:
        self.responder = self.answer

    @property
    def requests(self) -> list[str]:
        """ "METHOD target" of each request received, in order."""
        return [f"{request.method} {request.target}" for request in self.received]

    def answer(self, request: Received) -> Reply:
        if request.method == "GET":
            return self._get(request)
        if request.method == "POST":
            return self._post(request)
        return Reply(501, {"error": f"unsupported method {request.method}"})

    def _get(self, request: Received) -> Reply:
        url = urlsplit(request.target)
        if url.path == "/openapi.json":
            return Reply(200, openapi_document(self.url))
        if url.path == "/whoami":
            return Reply(200, {"token": request.headers.get("authorization", "").removeprefix("Bearer ")})
        if url.path == "/pets":
            if "status" in self.drift:
                return Reply(418, {"error": "I'm a teapot"})
            limit = int(parse_qs(url.query).get("limit", ["50"])[0])
            return Reply(200, list(self.pets.values())[:limit])
        if url.path.startswith("/pets/"):
            pet_id = int(url.path.rsplit("/", 1)[1])
            pet = dict(self.pets.get(pet_id, {"id": pet_id, "name": f"pet{pet_id}"}))
            if "field" in self.drift:
                pet.pop("name")
            return Reply(200, pet)
        return Reply(404, {"error": "not found"})

    def _post(self, request: Received) -> Reply:
        if request.headers.get("authorization") != f"Bearer {self.token}":
            return Reply(401, {"error": "unauthorized"})
        body = json.loads(request.body or b"{}")
        pet = {"id": max(self.pets) + 1, "name": body.get("name", "")}
        self.pets[pet["id"]] = pet
        return Reply(201, pet)


def running_petstore() -> AbstractContextManager[Petstore]:
    """Serve a Petstore on 127.0.0.1 (a free port) for the duration of the block."""
    return serving(Petstore())


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
