#!/bin/bash
# Deploys the current build to the staging host.
set -euo pipefail
HOST=staging.internal
rsync -az --delete build/ "deploy@$HOST:/srv/app/"
ssh -i deploy/id_ed25519 "deploy@$HOST" 'systemctl restart app'
