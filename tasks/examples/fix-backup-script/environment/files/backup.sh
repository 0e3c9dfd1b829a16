#!/bin/bash
# backup.sh SRC_DIR DEST_DIR
# Archives SRC_DIR into DEST_DIR/backup-<name>.tar.gz and writes its checksum beside it.
set -e
SRC=$1
DEST=$2
NAME=$(basename $SRC)
mkdir $DEST
cd $SRC
tar czf $DEST/backup-$NAME.tar.gz *
sha256sum $DEST/backup-$NAME.tar.gz > $DEST/backup-$NAME.sha256
echo "backed up $SRC"
