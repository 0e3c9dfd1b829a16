#!/usr/bin/env bash
# npm run bootstrap: set up T1 Lab on a fresh Debian/Ubuntu machine, before node_modules exists.
# Installs the system packages the lab needs (with sudo when not root), printing each step, then `npm ci`
# (which also builds the app through the `prepare` script).
set -euo pipefail
cd "$(dirname "$0")/.."

# bubblewrap: the sandbox; chromium: end-to-end UI tests; python3-pytest: task verifiers written in pytest.
# What the tests spawn besides: asciinema (plays the recordings back), procps (ps), git (the host canary).
# sqlite3, make, gcc: tools some generated tasks need (tasks/families/scenarios, their `requires`).
# python3-jinja2: the reference renderer of published chat templates (test/integration/model/hf-tokenizer-llamacpp.test.ts).
# podman, runc, mmdebstrap, uidmap (podman recommends it; bootstrap installs without recommends): the container backend (runc: crun refuses hybrid cgroup layouts) and its local Debian base image.
# openssl: the engine-host tests make TLS client certificates (test/integration/containers/hosts-api.test.ts).
# docker.io: dockerd as an engine host beside podman's API service (test/integration/containers/hosts-eval.test.ts starts one of its own; none is left running).
# openssh-server: an ssh:// engine host (test/integration/containers/hosts-ssh.test.ts starts an sshd of its own on loopback; ssh-agent, ssh-keygen, ssh-keyscan come with it). The system sshd apt enables under systemd is disabled again below.
PACKAGES=(bubblewrap chromium python3-pytest asciinema procps git sqlite3 make gcc podman runc mmdebstrap uidmap python3-jinja2 openssl docker.io openssh-server)

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
    # The tests start an sshd of their own; the system's, which apt enables under systemd, would open port
    # 22 on a machine that had none: stopped and disabled again (only when bootstrap installed it).
    if [[ " ${missing[*]} " == *" openssh-server "* ]] && [ -d /run/systemd/system ]; then
      as_root systemctl disable --now ssh.service ssh.socket >/dev/null 2>&1 || true
      step "openssh-server installed for the tests; the system's sshd it enabled is stopped and disabled"
    fi
  else
    step "system packages already installed: ${PACKAGES[*]}"
  fi
else
  echo "bootstrap: not a Debian/Ubuntu system; install these yourself: ${PACKAGES[*]}" >&2
fi

step "node $(node --version), npm $(npm --version)"

# The Node the lab runs on: 22.13 or newer (in the 22 line, or 24 and newer), the one requirement that
# README.md, docs/guide/install-and-doctor.md and package.json's engines state too
# (test/unit/docs/node-requirement.test.ts keeps them equal). Why: electron, commander, @electron/get|rebuild
# and node-abi declare node >= 22.12, eslint ^22.13 || >= 24.
LAB_NODE_MIN=22.13
# This script itself starts on an older Node (20.17, the oldest its npm runs on) to install that one.
node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<17)) { console.error(`bootstrap: needs Node.js 20.17 or newer to start (its npm), and then installs the Node the lab runs on (${process.argv[1]}+)`); process.exit(1) }' "$LAB_NODE_MIN"

# Where this machine's node is older than LAB_NODE_MIN, the official Node binary as an
# npm registry package (node-linux-<arch>, the same files as nodejs.org's tarball, headers included) goes to
# .tools/node: npm ci runs on it (no EBADENGINE warning; node-gyp builds node-pty against its headers,
# offline), and npm scripts use it (node_modules/.bin/node), so `npm test`, `npm start` and npx do too.
NODE_VERSION=22.23.5
LAB_NODE=""
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); const [ma,mb]=process.argv[1].split(".").map(Number); process.exit((a===ma&&b>=mb)||a>=24?0:1)' "$LAB_NODE_MIN"; then
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) arch="" ;; esac
  if [ -z "$arch" ]; then
    echo "bootstrap: node $(node --version) is older than the lab needs ($LAB_NODE_MIN+) and no Node package exists for $(uname -m); install Node.js 22 LTS and rerun" >&2; exit 1
  fi
  TOOLS="$PWD/.tools/node"
  LAB_NODE="$TOOLS/node_modules/node-linux-$arch"
  if [ "$("$LAB_NODE/bin/node" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
    step "node $(node --version) is older than the lab needs ($LAB_NODE_MIN+): installing Node $NODE_VERSION from the npm registry (node-linux-$arch) into .tools/node"
    mkdir -p "$TOOLS"
    npm install --prefix "$TOOLS" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts "node-linux-$arch@$NODE_VERSION"
  fi
  export PATH="$LAB_NODE/bin:$PATH" npm_config_nodedir="$LAB_NODE"
  step "the lab runs on node $(node --version)"
fi

step "npm ci (installs dependencies and builds the app)"
# Offline installs: Electron's binary downloads on first launch instead; onnxruntime-node's postinstall would
# fetch the CUDA provider from NuGet (package.json's allowScripts denies it on npm 11+; the variable, which its
# installer reads, covers older npm). `npm run setup:cuda` fetches the provider on a connected GPU machine.
ELECTRON_SKIP_BINARY_DOWNLOAD=1 ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
if [ -n "$LAB_NODE" ]; then ln -sfn "$LAB_NODE/bin/node" node_modules/.bin/node; fi

step "done. Next: npm start (the app) or npm test (the test suite)"
