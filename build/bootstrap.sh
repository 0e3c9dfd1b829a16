#!/usr/bin/env bash
# npm run bootstrap: set up T1 Lab on a fresh Debian/Ubuntu machine, before node_modules exists.
# Installs the system packages the lab needs (with sudo when not root), printing each step, then `npm ci`
# (which also builds the app through the `prepare` script).
set -euo pipefail
cd "$(dirname "$0")/.."

# bubblewrap: the sandbox; chromium: end-to-end UI tests; python3-pytest: task verifiers written in pytest.
# What the tests spawn besides: asciinema (plays the recordings back), procps (ps), git (the host canary).
# sqlite3, make, gcc: tools some generated tasks need (tasks/families/more, their `requires`).
# podman, runc, mmdebstrap, uidmap (podman recommends it; bootstrap installs without recommends): the container backend (runc: crun refuses hybrid cgroup layouts) and its local Debian base image.
PACKAGES=(bubblewrap chromium python3-pytest asciinema procps git sqlite3 make gcc podman runc mmdebstrap uidmap)

step() { printf '\n==> %s\n' "$*"; }
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "bootstrap: need root to run '$*' and sudo is not installed; run it as root, then rerun npm run bootstrap" >&2; exit 1
  fi
}

missing=()
if command -v dpkg-query >/dev/null; then
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    step "installing system packages: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    step "system packages already installed: ${PACKAGES[*]}"
  fi
else
  echo "bootstrap: not a Debian/Ubuntu system; install these yourself: ${PACKAGES[*]}" >&2
fi

step "node $(node --version), npm $(npm --version)"
node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<19)) { console.error("bootstrap: T1 Lab needs Node.js 20.19 or newer"); process.exit(1) }'

step "npm ci (installs dependencies and builds the app)"
# Offline installs: Electron's binary downloads on first launch instead; onnxruntime-node's postinstall would
# fetch the CUDA provider from NuGet (package.json's allowScripts denies it on npm 11+; the variable, which its
# installer reads, covers older npm). `npm run setup:cuda` fetches the provider on a connected GPU machine.
ELECTRON_SKIP_BINARY_DOWNLOAD=1 ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund

step "done. Next: npm start (the app) or npm test (the test suite)"
