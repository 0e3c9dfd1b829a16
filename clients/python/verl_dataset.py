#!/usr/bin/env python3
"""verl dataset rows for T1 Lab tasks, from the Harbor folders `t1lab tasks export` writes: one row per task
with the chat prompt (the task's instruction), the agent loop to run it (`tool_agent`) and the `terminal`
tool's create_kwargs (the task id the environment service resets to).

    python3 verl_dataset.py --harbor exported/ --out train.jsonl [--system "..."]

verl reads parquet: on the cluster, `pandas.read_json("train.jsonl", lines=True).to_parquet("train.parquet")`.
"""

import argparse
import json
import os
import sys

SYSTEM = (
    "You are an agent in a Linux terminal. Use the terminal tool to run commands; "
    "call it with submit=true when the task is done."
)


def rows(harbor_dir: str, system: str, data_source: str):
    for name in sorted(os.listdir(harbor_dir)):
        instruction = os.path.join(harbor_dir, name, "instruction.md")
        if not os.path.isfile(instruction):
            continue
        with open(instruction, encoding="utf-8") as f:
            text = f.read()
        yield {
            "data_source": data_source,
            "agent_name": "tool_agent",
            "prompt": [{"role": "system", "content": system}, {"role": "user", "content": text}],
            "reward_model": {"style": "rule", "ground_truth": ""},
            "extra_info": {"index": name, "need_tools_kwargs": True, "tools_kwargs": {"terminal": {"create_kwargs": {"task_id": name}}}},
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--harbor", required=True, help="a folder of Harbor task folders (t1lab tasks export --out)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--system", default=SYSTEM)
    parser.add_argument("--data-source", default="t1lab")
    args = parser.parse_args()
    n = 0
    with open(args.out, "w", encoding="utf-8") as out:
        for row in rows(args.harbor, args.system, args.data_source):
            out.write(json.dumps(row) + "\n")
            n += 1
    print(f"{n} rows written to {args.out}", file=sys.stderr)
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())
