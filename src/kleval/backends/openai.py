"""A backend for OpenAI-compatible servers (`vllm serve`, SGLang, TGI): stdlib HTTP, no SDK.

One request per (prompt, sample index), each with its own seed derived as in the other
backends, so per-sample token counts are exact (from the server's `usage`) and a sample does not
depend on how prompts were grouped. Requests run in a bounded thread pool; connection errors,
429 and 5xx answers are retried with exponential backoff; any other error stops the call with
the server's own message.
"""
from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Sequence

from kleval.backends.common import API_KEY_ENV, apply_chat, check_options, sample_seed, strip_reasoning, truncate_at_stop
from kleval.errors import ConfigError, KlevalError
from kleval.types import Completion, SamplingParams

OPTIONS = ("base_url", "api_key", "model", "concurrency", "max_retries", "backoff", "timeout", "strip_think")
_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class ServerError(KlevalError):
    """The server refused a request or could not be reached after all retries."""


class OpenAIBackend:
    """Completions from an OpenAI-compatible HTTP endpoint.

    `model_path` is the served model name (what the server lists under /v1/models) unless the
    `model` option overrides it. With chat=True the prompt is wrapped by a local tokenizer's chat
    template when `tokenizer_path` (or `model_path`) holds one, and otherwise sent to
    /chat/completions as one user message so the server applies its own template.
    """

    name = "openai"

    def __init__(self, model_path: str | Path, *, tokenizer_path: str | Path | None = None, **options: Any):
        check_options(self.name, options, OPTIONS)
        base_url = options.get("base_url") or os.environ.get("OPENAI_BASE_URL")
        if not base_url:
            raise ConfigError("the openai backend needs a server address: --base-url http://HOST:PORT/v1 "
                              "(or set OPENAI_BASE_URL)")
        self.base_url = str(base_url).rstrip("/")
        self.api_key = (options.get("api_key") or os.environ.get(API_KEY_ENV) or os.environ.get("OPENAI_API_KEY")
                        or "EMPTY")
        self.model = str(options.get("model") or model_path)
        self.concurrency = int(options.get("concurrency", 16))
        self.max_retries = int(options.get("max_retries", 5))
        self.backoff = float(options.get("backoff", 1.0))
        self.timeout = float(options.get("timeout", 600.0))
        self.strip_think = bool(options.get("strip_think", False))
        if self.concurrency < 1 or self.max_retries < 0:
            raise ConfigError("concurrency must be >= 1 and max_retries >= 0")
        self.tokenizer = self._local_tokenizer(tokenizer_path or model_path)

    @staticmethod
    def _local_tokenizer(path):
        """A tokenizer for chat templating, only when a local directory holds one."""
        directory = Path(path)
        if not (directory / "tokenizer_config.json").is_file():
            return None
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(directory))

    def generate(self, prompts: Sequence[str], params: SamplingParams, *, chat: bool = False) -> list[list[Completion]]:
        use_chat_endpoint = chat and self.tokenizer is None
        if self.tokenizer is not None:
            texts = apply_chat(self.tokenizer, prompts, chat)
        else:
            texts = list(prompts)
        jobs = [(i, j) for i in range(len(texts)) for j in range(params.n)]
        results: list[list[Completion | None]] = [[None] * params.n for _ in texts]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, max(1, len(jobs)))) as pool:
            futures = {
                pool.submit(self._one_sample, texts[i], sample_seed(params.seed, texts[i], j) & 0x7FFFFFFF,
                            params, use_chat_endpoint): (i, j)
                for i, j in jobs
            }
            for future, (i, j) in futures.items():
                results[i][j] = future.result()
        return results  # type: ignore[return-value]

    def close(self) -> None:
        """Nothing to release: every request opens and closes its own connection."""

    def _one_sample(self, text: str, seed: int, params: SamplingParams, use_chat_endpoint: bool) -> Completion:
        body: dict[str, Any] = {
            "model": self.model, "n": 1, "seed": seed, "temperature": params.temperature,
            "top_p": params.top_p, "max_tokens": params.max_tokens,
        }
        if params.stop:
            body["stop"] = list(params.stop)
        if use_chat_endpoint:
            body["messages"] = [{"role": "user", "content": text}]
            answer = self._post("/chat/completions", body)
        else:
            body["prompt"] = text
            answer = self._post("/completions", body)
        try:
            choice = answer["choices"][0]
            content = choice["message"]["content"] if use_chat_endpoint else choice["text"]
            usage = answer.get("usage") or {}
        except (KeyError, IndexError, TypeError) as exc:
            raise ServerError(f"{self.base_url} answered without choices[0] text: {str(answer)[:200]}") from exc
        content, hit = truncate_at_stop(content or "", params.stop)
        finish = "length" if choice.get("finish_reason") == "length" and not hit else "stop"
        if self.strip_think:
            content = strip_reasoning(content)
        return Completion(text=content, num_tokens=int(usage.get("completion_tokens", 0)),
                          prompt_tokens=int(usage.get("prompt_tokens", 0)), finish_reason=finish)

    def _post(self, route: str, body: dict[str, Any]) -> dict[str, Any]:
        url = self.base_url + route
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"}
        last_error = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(min(self.backoff * 2 ** (attempt - 1), 30.0))
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode())
            except urllib.error.HTTPError as exc:
                detail = _error_message(exc)
                if exc.code not in _RETRY_STATUS:
                    raise ServerError(f"{url} refused the request (HTTP {exc.code}): {detail}") from exc
                last_error = f"HTTP {exc.code}: {detail}"
            except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
                last_error = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
            except json.JSONDecodeError as exc:
                raise ServerError(f"{url} answered with invalid JSON ({exc})") from exc
        raise ServerError(f"{url} failed after {self.max_retries + 1} attempts; last error: {last_error}; "
                          "is the server running and the base_url right?")


def _error_message(error: urllib.error.HTTPError) -> str:
    """The server's error text: OpenAI-style {"error": {"message"}} when present, else the raw body."""
    raw = error.read().decode(errors="replace")
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        return raw[:300] or error.reason
    err = parsed.get("error", parsed) if isinstance(parsed, dict) else parsed
    if isinstance(err, dict):
        return str(err.get("message") or err)[:300]
    return str(err)[:300]
