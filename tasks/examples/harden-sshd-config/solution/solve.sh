#!/bin/bash
set -euo pipefail
cd /app/etc/ssh
cp -p sshd_config sshd_config.orig
grep -nE '^#?(Port|PermitRootLogin|PasswordAuthentication|X11Forwarding|AllowUsers)\b|^Match' sshd_config
# Only the global section: stop at the first Match line.
sed -i '/^Match /,$!{s/^#\?Port .*/Port 2222/}' sshd_config
sed -i '/^Match /,$!{s/^#\?PermitRootLogin .*/PermitRootLogin no/}' sshd_config
sed -i '/^Match /,$!{s/^#\?PasswordAuthentication .*/PasswordAuthentication no/}' sshd_config
sed -i '/^Match /,$!{s/^#\?X11Forwarding .*/X11Forwarding no/}' sshd_config
grep -q '^AllowUsers' sshd_config || sed -i '/^PermitRootLogin no$/a AllowUsers alice bob' sshd_config
diff sshd_config.orig sshd_config || true
