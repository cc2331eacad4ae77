"""A small real HTTP server that speaks the OpenAI completions schema, for the openai backend."""
from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


class FakeOpenAIServer:
    """Answers /v1/completions and /v1/chat/completions with text derived from (prompt, seed).

    `fail_next` answers that many requests with HTTP 503 first; `delay` holds each request so
    the test can see how many run at once (`max_in_flight`); model "missing" gets HTTP 404.
    """

    def __init__(self):
        self.fail_next = 0
        self.delay = 0.0
        self.requests: list[tuple[str, dict]] = []
        self.authorizations: list[str | None] = []  # the Authorization header of each request
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @staticmethod
    def completion_words(prompt: str, seed: int, count: int) -> list[str]:
        digest = hashlib.sha256(f"{prompt}|{seed}".encode()).hexdigest()
        return [f"w{digest[i % 60: i % 60 + 2]}" for i in range(count)]

    def _answer(self, route: str, body: dict) -> tuple[int, dict]:
        if body.get("model") == "missing":
            return 404, {"error": {"message": "The model `missing` does not exist."}}
        prompt = body["prompt"] if route.endswith("/completions") and "prompt" in body else \
            body["messages"][-1]["content"]
        words = self.completion_words(prompt, body.get("seed", 0), 40)
        text, finish = " ".join(words[: body["max_tokens"]]), "length"
        for stop in body.get("stop") or []:
            if stop in text:
                text, finish = text[: text.index(stop)], "stop"
        if len(words) <= body["max_tokens"]:
            finish = "stop"
        choice = {"index": 0, "finish_reason": finish}
        if "messages" in body:
            choice["message"] = {"role": "assistant", "content": text}
        else:
            choice["text"] = text
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": len(text.split())}
        return 200, {"object": "text_completion", "choices": [choice], "usage": usage}

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append((self.path, body))
                    server.authorizations.append(self.headers.get("Authorization"))
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    failing = server.fail_next > 0
                    server.fail_next -= 1 if failing else 0
                try:
                    time.sleep(server.delay)
                    status, payload = (503, {"error": {"message": "overloaded"}}) if failing else \
                        server._answer(self.path, body)
                finally:
                    with server.lock:
                        server.in_flight -= 1
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def openai_server():
    server = FakeOpenAIServer()
    yield server
    server.close()
