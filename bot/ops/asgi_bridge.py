"""An ASGI application answering one aiohttp request: the MCP SDK's streamable HTTP transport is
ASGI (Starlette), the ops server is aiohttp, and one port serves both.

The request body is read whole first (aiohttp's client_max_size bounds it); the application's
response is streamed as it sends it, so a Server-Sent Events answer reaches the client event by
event. After the body, `receive` waits until the answer is done or the client is gone, then says
`http.disconnect`, as an ASGI server does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from aiohttp import web

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
AsgiApp = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]


async def serve_asgi(app: AsgiApp, request: web.Request) -> web.StreamResponse:
    body = await request.read()
    done = asyncio.Event()
    sent_body = False
    response: web.StreamResponse | None = None

    async def receive() -> Message:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal response
        if message["type"] == "http.response.start":
            response = web.StreamResponse(status=message["status"])
            for name, value in message.get("headers", ()):
                response.headers.add(name.decode("latin-1"), value.decode("latin-1"))
            await response.prepare(request)
        elif message["type"] == "http.response.body" and response is not None:
            await response.write(message.get("body", b""))
            if not message.get("more_body", False):
                await response.write_eof()
                done.set()

    try:
        await app(_scope(request), receive, send)
    finally:
        done.set()
    if response is None:  # the application ended without answering
        return web.json_response({"error": "no answer"}, status=500)
    return response


def _scope(request: web.Request) -> dict[str, Any]:
    host, port = _server(request)
    peer = request.transport.get_extra_info("peername") if request.transport else None
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": f"{request.version.major}.{request.version.minor}",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.raw_path.split("?", 1)[0].encode("latin-1"),
        "query_string": request.query_string.encode("latin-1"),
        "root_path": "",
        "headers": [(name.lower(), value) for name, value in request.raw_headers],
        "client": tuple(peer[:2]) if isinstance(peer, tuple) else None,
        "server": (host, port),
    }


def _server(request: web.Request) -> tuple[str, int | None]:
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    if isinstance(sockname, tuple):
        return str(sockname[0]), int(sockname[1])
    return request.host, None
