#!/bin/bash
set -euo pipefail
cd /app
cat backup.sh
cat > backup.sh <<'SH'
#!/bin/bash
# backup.sh SRC_DIR DEST_DIR
# Archives SRC_DIR into DEST_DIR/backup-<name>.tar.gz and writes its checksum beside it.
set -euo pipefail
if [ "$#" -ne 2 ]; then
  echo "usage: backup.sh SRC_DIR DEST_DIR" >&2
  exit 2
fi
if [ ! -d "$1" ]; then
  echo "backup.sh: '$1' is not a directory" >&2
  exit 2
fi
src=$(cd -- "$1" && pwd)
mkdir -p -- "$2"
dest=$(cd -- "$2" && pwd)
name=$(basename -- "$src")
archive="backup-$name.tar.gz"
tar -czf "$dest/$archive" -C "$(dirname -- "$src")" -- "$name"
(cd -- "$dest" && sha256sum -- "$archive" > "backup-$name.sha256")
echo "backed up $src"
SH
chmod +x backup.sh
mkdir -p /tmp/try/src && echo x > /tmp/try/src/.h && ./backup.sh /tmp/try/src "/tmp/try/out dir" && (cd "/tmp/try/out dir" && sha256sum -c backup-src.sha256)
