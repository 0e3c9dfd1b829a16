"""Client of T1 Lab's environment service (`t1lab env serve`), standard library only (Python 3.9+).

The service speaks OpenEnv's protocol (POST /reset, POST /step, GET /state) with one bearer token per
session, issued by the admin token (POST /sessions). Synchronous::

    env = T1LabEnv("http://127.0.0.1:40123", admin_token=open(path).read().strip())
    with env.session() as s:
        result = s.reset(task_id="log-report-7c543v")
        print(result.observation["instruction"])
        result = s.run("ls -la")
        result = s.submit()
        print(result.done, result.reward, result.observation["rewards"])

and the same with asyncio (each call runs in a worker thread, so sessions proceed concurrently)::

    env = AsyncT1LabEnv(url, admin_token)
    async with await env.session() as s:
        result = await s.reset(seed=3)

A full session holds one sandbox; closing it (or leaving the `with`) removes it.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Union

__all__ = ["EnvError", "StepResult", "T1LabEnv", "Session", "AsyncT1LabEnv", "AsyncSession"]


class EnvError(Exception):
    """A refusal of the service: `status` (HTTP), `message`, and `retry_after` (seconds) on a 429."""

    def __init__(self, status: int, message: str, retry_after: Optional[float] = None):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
        self.retry_after = retry_after


@dataclass
class StepResult:
    """OpenEnv's StepResponse: the observation dict, the reward (None until done) and done."""

    observation: Dict[str, Any]
    reward: Optional[float]
    done: bool


class _Http:
    """One keep-alive HTTP connection (a session sends one request at a time)."""

    def __init__(self, base_url: str, timeout: float):
        url = urllib.parse.urlsplit(base_url)
        if url.scheme not in ("http", "https"):
            raise ValueError(f"base_url must be http:// or https://, got {base_url!r}")
        self._https = url.scheme == "https"
        self._host = url.hostname or "127.0.0.1"
        self._port = url.port
        self._timeout = timeout
        self._conn: Optional[http.client.HTTPConnection] = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=self._timeout)
        return self._conn

    def request(self, method: str, path: str, token: Optional[str], body: Optional[dict] = None) -> Any:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request(method, path, body=data, headers=headers)
                response = conn.getresponse()
                text = response.read().decode("utf-8", "replace")
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A kept-alive connection the server closed: reconnect once (requests are not replayed twice).
                self.close()
                if attempt == 2:
                    raise
        payload: Any = json.loads(text) if text else {}
        if response.status >= 400:
            error = payload.get("error", {}) if isinstance(payload, dict) else {}
            retry = response.getheader("Retry-After")
            raise EnvError(response.status, str(error.get("message", text[:200])), float(retry) if retry else None)
        return payload

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _result(payload: Dict[str, Any]) -> StepResult:
    return StepResult(observation=payload.get("observation", {}), reward=payload.get("reward"), done=bool(payload.get("done")))


class Session:
    """One session: its own bearer token and sandbox. Use as a context manager, or call close()."""

    def __init__(self, base_url: str, session_id: str, token: str, timeout: float):
        self.session_id = session_id
        self._token = token
        self._http = _Http(base_url, timeout)

    def __repr__(self) -> str:  # never shows the token
        return f"Session({self.session_id!r})"

    def reset(self, task_id: Optional[str] = None, seed: Optional[int] = None) -> StepResult:
        body: Dict[str, Any] = {}
        if task_id is not None:
            body["task_id"] = task_id
        if seed is not None:
            body["seed"] = seed
        return _result(self._http.request("POST", "/reset", self._token, body))

    def step(self, action: Dict[str, Any]) -> StepResult:
        return _result(self._http.request("POST", "/step", self._token, {"action": action}))

    def run(self, command: str, timeout_s: Optional[float] = None) -> StepResult:
        action: Dict[str, Any] = {"command": command}
        if timeout_s is not None:
            action["timeout_s"] = timeout_s
        return self.step(action)

    def keys(self, keystrokes: Union[str, Sequence[str]], duration_s: Optional[float] = None) -> StepResult:
        action: Dict[str, Any] = {"keystrokes": keystrokes if isinstance(keystrokes, str) else list(keystrokes)}
        if duration_s is not None:
            action["duration_s"] = duration_s
        return self.step(action)

    def submit(self) -> StepResult:
        return self.step({"submit": True})

    def state(self) -> Dict[str, Any]:
        return self._http.request("GET", "/state", self._token)

    def close(self) -> None:
        try:
            self._http.request("DELETE", "/session", self._token)
        except EnvError as e:
            if e.status != 401:  # already ended (expired, idle): nothing to close
                raise
        finally:
            self._http.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class T1LabEnv:
    """The service, as its admin: opens sessions, lists tasks, reads a task's oracle."""

    def __init__(self, base_url: str, admin_token: str, timeout: float = 900.0):
        self.base_url = base_url.rstrip("/")
        self._admin = admin_token
        self._timeout = timeout
        self._http = _Http(self.base_url, timeout)

    def session(self, wait_s: float = 600.0) -> Session:
        """A new session; when all are in use, waits as Retry-After says (up to wait_s)."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                created = self._http.request("POST", "/sessions", self._admin, {})
                return Session(self.base_url, created["session_id"], created["token"], self._timeout)
            except EnvError as e:
                if e.status != 429 or time.monotonic() + (e.retry_after or 1) > deadline:
                    raise
                time.sleep(e.retry_after or 1)

    def tasks(self) -> List[str]:
        return list(self._http.request("GET", "/tasks", self._admin)["tasks"])

    def oracle(self, task_id: str) -> List[str]:
        path = "/tasks/" + urllib.parse.quote(task_id, safe="") + "/oracle"
        return list(self._http.request("GET", path, self._admin)["commands"])

    def health(self) -> bool:
        return self._http.request("GET", "/health", None).get("status") == "healthy"

    def close(self) -> None:
        self._http.close()


class AsyncSession:
    """A Session for asyncio: every call runs in a worker thread."""

    def __init__(self, session: Session):
        self._s = session
        self.session_id = session.session_id

    async def reset(self, task_id: Optional[str] = None, seed: Optional[int] = None) -> StepResult:
        return await asyncio.to_thread(self._s.reset, task_id, seed)

    async def step(self, action: Dict[str, Any]) -> StepResult:
        return await asyncio.to_thread(self._s.step, action)

    async def run(self, command: str, timeout_s: Optional[float] = None) -> StepResult:
        return await asyncio.to_thread(self._s.run, command, timeout_s)

    async def keys(self, keystrokes: Union[str, Sequence[str]], duration_s: Optional[float] = None) -> StepResult:
        return await asyncio.to_thread(self._s.keys, keystrokes, duration_s)

    async def submit(self) -> StepResult:
        return await asyncio.to_thread(self._s.submit)

    async def state(self) -> Dict[str, Any]:
        return await asyncio.to_thread(self._s.state)

    async def close(self) -> None:
        await asyncio.to_thread(self._s.close)

    async def __aenter__(self) -> "AsyncSession":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


class AsyncT1LabEnv:
    """T1LabEnv for asyncio."""

    def __init__(self, base_url: str, admin_token: str, timeout: float = 900.0):
        self._env = T1LabEnv(base_url, admin_token, timeout)
        self._base_url = base_url
        self._admin = admin_token
        self._timeout = timeout

    async def session(self, wait_s: float = 600.0) -> AsyncSession:
        # Each opening uses its own admin connection: concurrent openings do not share one.
        def open_one() -> Session:
            env = T1LabEnv(self._base_url, self._admin, self._timeout)
            try:
                return env.session(wait_s)
            finally:
                env.close()

        return AsyncSession(await asyncio.to_thread(open_one))

    async def tasks(self) -> List[str]:
        return await asyncio.to_thread(self._env.tasks)

    async def oracle(self, task_id: str) -> List[str]:
        def read() -> List[str]:
            env = T1LabEnv(self._base_url, self._admin, self._timeout)
            try:
                return env.oracle(task_id)
            finally:
                env.close()

        return await asyncio.to_thread(read)

    async def close(self) -> None:
        self._env.close()
