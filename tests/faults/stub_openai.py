"""A stub OpenAI-compatible HTTP server on 127.0.0.1 that misbehaves on request.

`mode` decides every answer: "long" (a completion of `length` characters ending in a boxed
number derived from the prompt, or with `long_answers` for half the prompts a boxed
answer a third of that long), "stall" (never answers), "500" (HTTP 500 each time),
"truncate" (cuts its JSON body in half), "drop" (closes the connection without a reply).
`delay` holds every answer that long. Every request's headers are kept in `seen_auth` so tests can check where a key travels.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class StubOpenAI:
    def __init__(self, mode: str = "long", length: int = 10_000, long_answers: bool = False, delay: float = 0.0):
        self.mode, self.length, self.long_answers, self.delay = mode, length, long_answers, delay
        self.requests = 0
        self.seen_auth: list[str] = []
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None  # clients killed mid-reply are the point
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "StubOpenAI":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def completion(self, prompt: str, seed: int) -> str:
        digest = hashlib.sha256(f"{prompt}|{seed}".encode()).digest()
        words = " ".join(f"step{b}" for b in digest) + " "
        body = (words * (self.length // len(words) + 1))[: self.length - 16]
        if self.long_answers and digest[1] % 2:  # half the answers are a third of the completion
            return f"{body[: self.length * 2 // 3]} \\boxed{{{body[: self.length // 3]}}}"
        return f"{body} \\boxed{{{digest[0] % 7}}}"

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with stub.lock:
                    stub.requests += 1
                    stub.seen_auth.append(self.headers.get("Authorization", ""))
                time.sleep(stub.delay)  # a slow model, so that kills land during generation
                if stub.mode == "stall":
                    time.sleep(3600)
                if stub.mode == "drop":
                    self.connection.close()
                    return
                if stub.mode == "500":
                    self._reply(500, json.dumps({"error": {"message": "internal error"}}).encode())
                    return
                prompt = body.get("prompt") or body["messages"][-1]["content"]
                text = stub.completion(prompt, body.get("seed", 0))
                choice = {"index": 0, "finish_reason": "stop", "text": text,
                          "message": {"role": "assistant", "content": text}}
                payload = json.dumps({"choices": [choice], "usage": {"prompt_tokens": 5, "completion_tokens": 100}}).encode()
                if stub.mode == "truncate":
                    payload = payload[: len(payload) // 2]
                self._reply(200, payload)

            def _reply(self, status: int, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        return Handler
