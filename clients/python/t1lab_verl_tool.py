"""verl's tool interface over T1 Lab's environment service: one `terminal` tool per trajectory.

verl's agent loop (multi-turn rollouts) calls a tool's `create` when a trajectory starts, `execute` for
each tool call the model makes, `calc_reward` at the end and `release` afterwards. Here `create` opens a
session of `t1lab env serve` and resets it to the sample's task (`create_kwargs: {task_id}` or `{seed}`);
`execute` runs the call's command or keystrokes in the task's sandbox (or submits); `calc_reward`
submits when the model has not and returns the verifier's reward (`reward` in the tool config: dense,
fraction or binary); `release` ends the session, which removes the sandbox.

Without verl installed (on this machine: Ray and verl cannot be installed) the module still imports, with
small stand-ins for BaseTool and ToolResponse, so the service side can be tested up to the Ray boundary.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, Optional, Tuple
from uuid import uuid4

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from t1lab_env import AsyncSession, AsyncT1LabEnv, EnvError  # noqa: E402

try:  # verl >= 0.5
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse
except ImportError:  # stand-ins with the same shape, for tests without verl

    class BaseTool:  # type: ignore[no-redef]
        def __init__(self, config: dict, tool_schema: Any):
            self.config = config
            self.tool_schema = tool_schema
            self.name = "terminal"

    class ToolResponse:  # type: ignore[no-redef]
        def __init__(self, text: Optional[str] = None, **_: Any):
            self.text = text

    OpenAIFunctionToolSchema = dict  # type: ignore[misc,assignment]


TERMINAL_TOOL_SCHEMA = {
    "type": "function",
    "function": {
        "name": "terminal",
        "description": "Run a shell command in the task's terminal (or send keystrokes), and get its output. Call with submit=true when the task is done.",
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "A command line to run to completion."},
                "timeout_s": {"type": "number", "description": "Seconds to wait for the command (default 180)."},
                "keystrokes": {"type": "array", "items": {"type": "string"}, "description": 'Raw keys, e.g. ["q"] or ["C-c"].'},
                "submit": {"type": "boolean", "description": "Declare the task complete: the verifier runs."},
            },
        },
    },
}


class T1LabTerminalTool(BaseTool):
    """Config: url (the service), admin_token_env (default T1LAB_ENV_ADMIN_TOKEN), reward (default dense)."""

    def __init__(self, config: dict, tool_schema: Any = None):
        super().__init__(config, tool_schema or TERMINAL_TOOL_SCHEMA)
        token = os.environ.get(config.get("admin_token_env", "T1LAB_ENV_ADMIN_TOKEN"), "")
        if not token:
            raise ValueError("T1LabTerminalTool: set the service's admin token in $" + config.get("admin_token_env", "T1LAB_ENV_ADMIN_TOKEN"))
        self._env = AsyncT1LabEnv(config["url"], token, float(config.get("timeout_s", 900)))
        self._reward = config.get("reward", "dense")
        self._sessions: Dict[str, AsyncSession] = {}
        self._final: Dict[str, Dict[str, Any]] = {}

    async def create(self, instance_id: Optional[str] = None, task_id: Optional[str] = None, seed: Optional[int] = None, **kwargs: Any) -> Tuple[str, Any]:
        instance_id = instance_id or str(uuid4())
        session = await self._env.session()
        self._sessions[instance_id] = session
        result = await session.reset(task_id=task_id, seed=seed)
        return instance_id, ToolResponse(text=result.observation.get("instruction", ""))

    async def execute(self, instance_id: str, parameters: Dict[str, Any], **kwargs: Any) -> Tuple[Any, float, dict]:
        session = self._sessions[instance_id]
        if instance_id in self._final:
            return ToolResponse(text="[the episode is over]"), 0.0, {}
        if parameters.get("submit"):
            action: Dict[str, Any] = {"submit": True}
        elif parameters.get("keystrokes"):
            action = {"keystrokes": list(parameters["keystrokes"])}
        elif isinstance(parameters.get("command"), str) and parameters["command"].strip():
            action = {"command": parameters["command"]}
            if isinstance(parameters.get("timeout_s"), (int, float)) and parameters["timeout_s"] > 0:
                action["timeout_s"] = float(parameters["timeout_s"])
        else:
            return ToolResponse(text='Give "command", "keystrokes", or "submit": true.'), 0.0, {}
        try:
            result = await session.step(action)
        except EnvError as e:
            return ToolResponse(text=f"[error {e.status}: {e.message}]"), 0.0, {}
        if result.done:
            self._final[instance_id] = result.observation
        return ToolResponse(text=str(result.observation.get("output", ""))), 0.0, {"step": result.observation.get("step")}

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        if instance_id not in self._final:
            result = await self._sessions[instance_id].submit()
            self._final[instance_id] = result.observation
        rewards = self._final[instance_id].get("rewards") or {}
        return float(rewards.get(self._reward, 0.0))

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        session = self._sessions.pop(instance_id, None)
        self._final.pop(instance_id, None)
        if session is not None:
            await session.close()
