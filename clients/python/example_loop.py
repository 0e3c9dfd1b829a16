#!/usr/bin/env python3
"""An episode loop against `t1lab env serve`, with asyncio: N sessions at once, each resets to a task,
acts, submits and reads the verifier's rewards. The policy here is the task's oracle (read with the admin
token), so every episode should resolve; a trainer puts its model's actions in `policy_actions`.

    python3 example_loop.py --url http://127.0.0.1:40123 --admin-token-file ~/.local/share/t1-lab/env/admin-token \\
        --concurrency 16 [--tasks ID,ID,...]

Prints one JSON line per episode: task_id, done, resolved, reward, rewards {dense, fraction, binary},
steps, stop_reason.
"""

import argparse
import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from t1lab_env import AsyncT1LabEnv  # noqa: E402


async def policy_actions(env: AsyncT1LabEnv, task_id: str, observation: dict):
    """The actions of one episode. Here: the oracle's commands, then the submit."""
    for command in await env.oracle(task_id):
        yield {"command": command, "timeout_s": 120}
    yield {"submit": True}


async def episode(env: AsyncT1LabEnv, task_id: str) -> dict:
    async with await env.session() as session:
        result = await session.reset(task_id=task_id)
        steps = 0
        async for action in policy_actions(env, task_id, result.observation):
            if result.done:
                break
            result = await session.step(action)
            steps += 1
        obs = result.observation
        return {
            "task_id": task_id,
            "done": result.done,
            "resolved": obs.get("resolved", False),
            "reward": result.reward,
            "rewards": obs.get("rewards"),
            "steps": steps,
            "stop_reason": obs.get("stop_reason"),
        }


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--admin-token-file", default=None, help="else $T1LAB_ENV_ADMIN_TOKEN")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--tasks", default=None, help="comma-separated task ids (default: every task of the service)")
    args = parser.parse_args()
    if args.admin_token_file:
        with open(os.path.expanduser(args.admin_token_file), encoding="utf-8") as f:
            token = f.read().strip()
    else:
        token = os.environ["T1LAB_ENV_ADMIN_TOKEN"]
    env = AsyncT1LabEnv(args.url, token)
    task_ids = args.tasks.split(",") if args.tasks else await env.tasks()
    gate = asyncio.Semaphore(args.concurrency)

    async def one(task_id: str) -> dict:
        async with gate:
            return await episode(env, task_id)

    for line in await asyncio.gather(*(one(t) for t in task_ids)):
        print(json.dumps(line), flush=True)
    await env.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
