"""Inspects /app/photos without following links out of it: each link is resolved by hand."""
import hashlib
import os
from pathlib import Path

PHOTOS = Path("/app/photos")
GROUPS = {
    "2023/summer/beach.png": ["2024/beach-copy.png", "inbox/IMG_0001.png"],
    "2023/summer/city-night.jpg": ["2024/city.jpg"],
    "2023/winter/cabin.jpg": ["inbox/cabin (1).jpg"],
}
UNTOUCHED = ["2024/dog.png", "2023/notes.txt", "inbox/empty-a.txt", "inbox/empty-b.txt"]


def test_dupes_report():
    expected = "".join(f"{kept}\t{','.join(others)}\n" for kept, others in GROUPS.items())
    assert Path("/app/dupes.txt").read_text() == expected


def test_copies_are_relative_links_to_the_kept_file():
    for kept, others in GROUPS.items():
        assert (PHOTOS / kept).is_file() and not (PHOTOS / kept).is_symlink()
        for other in others:
            link = PHOTOS / other
            assert link.is_symlink(), other
            target = os.readlink(link)
            assert not target.startswith("/"), f"{other} -> {target} is absolute"
            assert os.path.normpath(os.path.join(os.path.dirname(other), target)) == kept


def test_other_files_untouched_and_bytes_saved():
    for rel in UNTOUCHED:
        assert (PHOTOS / rel).is_file() and not (PHOTOS / rel).is_symlink(), rel
    assert hashlib.sha256((PHOTOS / "2024/dog.png").read_bytes()).hexdigest() == hashlib.sha256(b"\x89PNG dog" + bytes(300)).hexdigest()
    assert Path("/app/saved.txt").read_text().strip() == "760"
