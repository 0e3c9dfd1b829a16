#!/usr/bin/env bash
# npm run setup:cuda — opt-in: fetch onnxruntime's CUDA execution provider on a machine with an NVIDIA GPU,
# its driver (CUDA 12 compatible) and internet access. onnxruntime-node's own installer downloads the
# provider libraries (from NuGet) next to its binding; installs skip that step (package.json's `allowScripts`
# denies its postinstall; bootstrap also sets ONNXRUNTIME_NODE_INSTALL=skip for npm versions without
# allowScripts) so that they work offline. Afterwards `t1lab doctor` reports whether the CUDA provider loads.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "setup:cuda: no NVIDIA GPU found (nvidia-smi is missing or lists none); the CPU provider needs nothing more." >&2
  exit 1
fi
echo "==> GPUs: $(nvidia-smi -L | tr '\n' ' ')"
echo "==> downloading onnxruntime's CUDA 12 provider libraries (needs internet)"
ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules/onnxruntime-node/script/install --onnxruntime-node-install=cuda12
echo "==> checking: t1lab doctor creates a real session on the CUDA provider and reports the loader's error if it fails"
echo "    (the provider also needs the CUDA 12 runtime and cuDNN 9 libraries on the library path, e.g. from"
echo "    NVIDIA's apt repository: cuda-libraries-12-x and libcudnn9-cuda-12)"
node bin/t1lab.js doctor
