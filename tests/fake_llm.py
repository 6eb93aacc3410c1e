"""A local HTTP server speaking the OpenAI-compatible chat API, with scripted replies.

``FakeLLM.replies`` is a list consumed in order; each item is a reply text, an ``(status, body)``
tuple for an HTTP error, or ``"sleep:N"`` to stall for N seconds (a timeout). When the list is
empty every request gets ``default``. Requests are recorded (body and headers) for assertions.
Serves ``/chat/completions``, ``/v1/chat/completions`` and ``/openai/v1/chat/completions`` (the
path the groq client uses).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeLLM:
    def __init__(self) -> None:
        self.replies: list = []
        self.default = "INSUFFICIENT: no script"
        self.requests: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                n = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(n) or b"{}")
                fake.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found"}})
                    return
                reply = fake.replies.pop(0) if fake.replies else fake.default
                if isinstance(reply, tuple):
                    status, payload = reply
                    self._send(status, payload)
                    return
                if isinstance(reply, str) and reply.startswith("sleep:"):
                    time.sleep(float(reply.split(":", 1)[1]))
                    reply = fake.default
                self._send(200, {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
                                 "model": body.get("model", ""),
                                 "choices": [{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": reply}}],
                                 "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

            def _send(self, status: int, payload) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
